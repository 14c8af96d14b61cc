import type { Tx } from './db/client.js';

export interface RecordedEvent {
  id: string;
  projectId: string;
  contactId: string;
  name: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Takes a batch of events in the order they were written, so it can do set-wise what it would do
 * one event at a time; it must give each event the effect it would have had alone.
 */
export type EventSubscriber = (tx: Tx, events: RecordedEvent[]) => Promise<void>;

/**
 * Every stored event reaches the subscribers (workflow triggers) once it is committed, through the
 * outbox drained by the worker (platform/event-dispatcher). A subscriber gets a transaction: what it
 * writes commits together with the events' delivery, or not at all.
 */
export class EventBus {
  private subscribers: EventSubscriber[] = [];

  subscribe(subscriber: EventSubscriber): void {
    this.subscribers.push(subscriber);
  }

  hasSubscribers(): boolean {
    return this.subscribers.length > 0;
  }

  async publish(tx: Tx, events: RecordedEvent[]): Promise<void> {
    for (const subscriber of this.subscribers) await subscriber(tx, events);
  }
}

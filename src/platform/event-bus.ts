import type { Tx } from './db/client.js';

export interface RecordedEvent {
  id: string;
  projectId: string;
  contactId: string;
  name: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

export type EventSubscriber = (tx: Tx, event: RecordedEvent) => Promise<void>;

/**
 * Every stored event reaches the subscribers (segment tracking, workflow triggers) once it is
 * committed, through the outbox drained by the worker (platform/event-dispatcher). A subscriber gets
 * a transaction: what it writes commits together with the event's delivery, or not at all.
 */
export class EventBus {
  private subscribers: EventSubscriber[] = [];

  subscribe(subscriber: EventSubscriber): void {
    this.subscribers.push(subscriber);
  }

  hasSubscribers(): boolean {
    return this.subscribers.length > 0;
  }

  async publish(tx: Tx, event: RecordedEvent): Promise<void> {
    for (const subscriber of this.subscribers) await subscriber(tx, event);
  }
}

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
 * Every stored event is published here inside the transaction that stored it, so a subscriber
 * (segment tracking, workflow triggers) can write its own rows and jobs atomically with the event.
 */
export class EventBus {
  private subscribers: EventSubscriber[] = [];

  subscribe(subscriber: EventSubscriber): void {
    this.subscribers.push(subscriber);
  }

  async publish(tx: Tx, event: RecordedEvent): Promise<void> {
    for (const subscriber of this.subscribers) await subscriber(tx, event);
  }
}

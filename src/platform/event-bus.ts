import { type SQL, sql } from 'drizzle-orm';
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
  private subscribers: { handle: EventSubscriber; wants?: SQL }[] = [];

  /**
   * `wants`: SQL true for a stored event this subscriber has work for, on the alias `ev` (its
   * `project_id`, `contact_id` and `name`); without it, the subscriber gets every event.
   */
  subscribe(subscriber: EventSubscriber, options: { wants?: SQL } = {}): void {
    this.subscribers.push({ handle: subscriber, ...(options.wants ? { wants: options.wants } : {}) });
  }

  hasSubscribers(): boolean {
    return this.subscribers.length > 0;
  }

  /**
   * SQL on the alias `ev`: true for an event that some subscriber has work for. A statement that
   * stores many events few subscribers care about (delivery outcomes) writes an outbox entry only
   * for those, and counts the others itself (events/record `storeEventsCte`).
   */
  wanted(): SQL {
    if (this.subscribers.some((s) => s.wants === undefined)) return sql`true`;
    if (this.subscribers.length === 0) return sql`false`;
    return sql`(${sql.join(
      this.subscribers.map((s) => sql`(${s.wants})`),
      sql` or `,
    )})`;
  }

  async publish(tx: Tx, events: RecordedEvent[]): Promise<void> {
    for (const subscriber of this.subscribers) await subscriber.handle(tx, events);
  }
}

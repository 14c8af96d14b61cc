import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { backoffMs } from '../domain/formats.js';
import type { Clock } from './clock.js';
import { type Database, run } from './db/client.js';
import type { EventBus, RecordedEvent } from './event-bus.js';
import { PollingLoop } from './polling.js';

const BATCH = 200;
const POLL_MS = 200;
const MAX_ATTEMPTS = 10;

interface OutboxEntry {
  id: number;
  event_id: string;
  attempts: number;
}

/**
 * Hands stored events to the bus's subscribers in the order they were written. A batch is claimed
 * and deleted from the outbox in one transaction, and published in a savepoint of it, so whatever a
 * subscriber writes (a job, a row) commits together with the events leaving the outbox. If a
 * subscriber fails, the savepoint is rolled back and the batch is published again one event per savepoint:
 * an event whose subscriber fails goes back with a delay, and after MAX_ATTEMPTS is parked for good,
 * while the others go through.
 */
export class EventDispatcher {
  private readonly loop = new PollingLoop({
    intervalMs: POLL_MS,
    round: async () => (await this.dispatchBatch()) === BATCH,
    onError: (err) => this.log.error({ err }, 'dispatching events failed'),
  });

  constructor(
    private readonly database: Database,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.loop.start();
  }

  /** A batch is published in the round's own transaction: once the round ends, nothing is left running. */
  async stop(): Promise<void> {
    await this.loop.stop(0);
  }

  /** Publishes up to one batch of due events; returns how many entries it took from the outbox. */
  async dispatchBatch(): Promise<number> {
    const now = this.clock.now();
    return this.database.db.transaction(async (tx) => {
      const claimed = (
        await run<OutboxEntry>(
          tx,
          sql`
          delete from event_outbox where id in (
            select id from event_outbox where available_at <= ${now} order by id limit ${BATCH} for update skip locked)
          returning id, event_id, attempts`,
        )
      ).rows.sort((a, b) => Number(a.id) - Number(b.id));
      if (claimed.length === 0 || !this.bus.hasSubscribers()) return claimed.length;

      const events = new Map(
        (
          await run(
            tx,
            sql`
            select id, project_id, contact_id, name, data, created_at from events
            where id in (select value::uuid
              from jsonb_array_elements_text(${JSON.stringify(claimed.map((c) => c.event_id))}::jsonb))`,
          )
        ).rows.map((r): [string, RecordedEvent] => [
          r.id,
          {
            id: r.id,
            projectId: r.project_id,
            contactId: r.contact_id,
            name: r.name,
            data: r.data,
            createdAt: new Date(r.created_at),
          },
        ]),
      );
      // Deleted since (with its contact, or by name): nothing left to announce.
      const ordered = claimed.flatMap((entry) => {
        const event = events.get(entry.event_id);
        return event ? [{ entry, event }] : [];
      });
      if (ordered.length === 0) return claimed.length;
      const putBack = async (entry: OutboxEntry, event: RecordedEvent, err: unknown) => {
        const attempts = entry.attempts + 1;
        this.log.warn({ err, eventId: event.id, attempts }, 'an event subscriber failed');
        const retryAt =
          attempts >= MAX_ATTEMPTS
            ? sql`'infinity'::timestamptz`
            : sql`${new Date(now.getTime() + backoffMs(attempts, 1000))}`;
        await run(
          tx,
          sql`
          insert into event_outbox (event_id, attempts, available_at, last_error)
          values (${event.id}, ${attempts}, ${retryAt}, ${String((err as Error)?.message ?? err).slice(0, 2000)})`,
        );
      };
      try {
        await tx.transaction((savepoint) =>
          this.bus.publish(
            savepoint,
            ordered.map((o) => o.event),
          ),
        );
        return claimed.length;
      } catch (err) {
        if (ordered.length === 1) {
          await putBack(ordered[0]!.entry, ordered[0]!.event, err);
          return claimed.length;
        }
        this.log.debug(
          { err, events: ordered.length },
          'publishing a batch of events failed; publishing them one by one',
        );
      }
      for (const { entry, event } of ordered) {
        try {
          await tx.transaction((savepoint) => this.bus.publish(savepoint, [event]));
        } catch (err) {
          await putBack(entry, event, err);
        }
      }
      return claimed.length;
    });
  }
}

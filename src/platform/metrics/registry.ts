import type { Logger } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Role } from '../../config.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/client.js';
import { type Backlog, EMAIL_LANES, type QueueSnapshot, readQueues } from './queues.js';

export interface MetricsDeps {
  role: Role;
  database: Database;
  clock: Clock;
  log: Logger;
}

/** What the relay answered a message handed to it: accepted (the email is sent), a temporary or a permanent refusal. */
export type RelayResult = 'accepted' | 'deferred' | 'rejected';
const RELAY_RESULTS: readonly RelayResult[] = ['accepted', 'deferred', 'rejected'];

/** A scrape within this long of the previous one reuses its database reading. */
const QUEUE_READING_TTL_MS = 1_000;

/**
 * The metrics of one process, in its own registry (`GET /metrics` on the metrics listener shows
 * this process only; Prometheus keeps processes apart by their `instance` label). Counters and
 * histograms are kept as things happen; the database gauges (backlogs, pool) are read at scrape time.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status_code'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly relayMessages: Counter<'result'>;
  readonly relayDuration: Histogram<'result'>;
  readonly relayInFlight: Gauge;
  private readonly collectErrors: Counter;
  private reading?: { at: number; snapshot: Promise<QueueSnapshot | null> };

  constructor(private readonly deps: MetricsDeps) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ role: deps.role });
    // Process CPU, memory, heap, GC, handles and nodejs_eventloop_lag_seconds (with its percentiles).
    collectDefaultMetrics({ register: this.registry });

    this.httpRequests = new Counter({
      name: 'postbox_http_requests_total',
      help: 'HTTP requests answered by the API, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'postbox_http_request_duration_seconds',
      help: 'Time from receiving an HTTP request to the end of its response, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });

    this.relayMessages = new Counter({
      name: 'postbox_relay_messages_total',
      help:
        'Emails handed to the relay (SMTP_URL, or the dev outbox without it) by its answer: ' +
        'accepted (the email is sent), deferred (retried later), rejected (failed)',
      labelNames: ['result'],
      registers,
    });
    for (const result of RELAY_RESULTS) this.relayMessages.inc({ result }, 0);
    this.relayDuration = new Histogram({
      name: 'postbox_relay_send_duration_seconds',
      help: 'Time the relay took to answer one email, by its answer',
      labelNames: ['result'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.relayInFlight = new Gauge({
      name: 'postbox_relay_in_flight',
      help: 'Emails handed to the relay and not answered yet',
      registers,
    });

    this.collectErrors = new Counter({
      name: 'postbox_metrics_collect_errors_total',
      help: 'Scrapes whose database backlogs could not be read (those gauges are then left out, or NaN)',
      registers,
    });

    const pool = deps.database;
    new Gauge({
      name: 'postbox_db_pool_connections',
      help: 'Connections of this process to PostgreSQL: checked out (in_use) or idle',
      labelNames: ['state'],
      registers,
      collect() {
        const s = pool.poolStats();
        this.set({ state: 'in_use' }, s.total - s.idle);
        this.set({ state: 'idle' }, s.idle);
      },
    });
    new Gauge({
      name: 'postbox_db_pool_waiting',
      help: 'Queries of this process waiting for a free connection to PostgreSQL',
      registers,
      collect() {
        this.set(pool.poolStats().waiting);
      },
    });

    const lanes = EMAIL_LANES.map((lane) => ({ lane }));
    this.backlogGauges(
      'postbox_email_queue',
      'emails with status queued, by delivery lane (transactional: mail without a campaign; campaign)',
      ['lane'],
      lanes,
      (s) => lanes.map((l) => [l, s.emails[l.lane]]),
    );
    this.backlogGauges('postbox_job_queue', 'background jobs of each queue', ['queue'], [], (s) =>
      [...s.jobs].map(([queue, b]) => [{ queue }, b]),
    );
    this.backlogGauges('postbox_event_outbox', 'events waiting in the outbox for their subscribers', [], [{}], (s) => [
      [{}, s.outbox],
    ]);
    this.backlogGauges('postbox_workflow_executions', 'workflow executions under way', [], [{}], (s) => [
      [{}, s.workflows],
    ]);
    const self = this;
    new Gauge({
      name: 'postbox_job_failed',
      help: 'Background jobs that failed for good (the whole database), by queue',
      labelNames: ['queue'],
      registers,
      async collect() {
        this.reset();
        for (const [queue, b] of (await self.queues())?.jobs ?? []) this.set({ queue }, b.failed);
      },
    });
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /**
   * `<name>{state="due"|"scheduled"}` and `<name>_oldest_due_seconds` for one backlog of the whole
   * database, from the one reading that every gauge of the scrape shares. `always`: the series that
   * exist whatever the database holds, whose age reads NaN when it could not be read.
   */
  private backlogGauges(
    name: string,
    what: string,
    labelNames: string[],
    always: Record<string, string>[],
    pick: (s: QueueSnapshot) => [Record<string, string>, Backlog][],
  ): void {
    const self = this;
    new Gauge({
      name,
      help:
        `Backlog of the whole database: ${what}, due now (due, including those being worked on) ` +
        'or set for later (scheduled)',
      labelNames: [...labelNames, 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        const s = await self.queues();
        if (!s) return;
        for (const [labels, b] of pick(s)) {
          this.set({ ...labels, state: 'due' }, b.due);
          this.set({ ...labels, state: 'scheduled' }, b.scheduled);
        }
      },
    });
    new Gauge({
      name: `${name}_oldest_due_seconds`,
      help:
        `Seconds since the next one of the ${what} to be taken became due (the queue's latency); ` +
        '0 when none is due, NaN when the database could not be read',
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        const s = await self.queues();
        // A series that always exists is NaN rather than a reassuring 0.
        if (!s) for (const labels of always) this.set(labels, NaN);
        else for (const [labels, b] of pick(s)) this.set(labels, b.oldestDueSeconds);
      },
    });
  }

  /** One reading of the backlogs per scrape (the gauges collect in parallel); null when the database did not answer. */
  private queues(): Promise<QueueSnapshot | null> {
    const now = Date.now();
    if (this.reading && now - this.reading.at < QUEUE_READING_TTL_MS) return this.reading.snapshot;
    const snapshot = readQueues(this.deps.database.db, this.deps.clock.now()).catch((err) => {
      this.collectErrors.inc();
      this.deps.log.warn(
        { err: { message: err instanceof Error ? err.message : String(err) } },
        'metrics: reading the queues failed',
      );
      return null;
    });
    this.reading = { at: now, snapshot };
    return snapshot;
  }
}

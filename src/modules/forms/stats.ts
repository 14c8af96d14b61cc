import { sql } from 'drizzle-orm';
import type { Clock } from '../../platform/clock.js';
import type { AppContext } from '../../platform/context.js';
import { type Executor, run } from '../../platform/db/client.js';

/**
 * Per form and per UTC day: views (a challenge issued by the form's script, which every showing of
 * the form fetches, hosted or embedded), accepted submissions and confirmations. Counted in
 * memory and added to `form_daily_stats` every few seconds in one statement, so a view costs a
 * map increment and not a write (docs/decisions.md, "Signup form statistics"). A process that is
 * killed loses the counts of its last few seconds; a stop flushes them.
 */

export type FormCounter = 'views' | 'submissions' | 'confirmations';

const FLUSH_MS = 2_000;

interface Pending {
  formId: string;
  day: string;
  views: number;
  submissions: number;
  confirmations: number;
}

export class FormStatsCounter {
  private pending = new Map<string, Pending>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Executor,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  count(formId: string, counter: FormCounter): void {
    const day = this.clock.now().toISOString().slice(0, 10);
    const key = `${formId}|${day}`;
    let row = this.pending.get(key);
    if (!row) {
      row = { formId, day, views: 0, submissions: 0, confirmations: 0 };
      this.pending.set(key, row);
    }
    row[counter]++;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(this.onError);
    }, FLUSH_MS).unref();
  }

  /** Writes what was counted so far (one statement for every form and day); resolves once written. */
  flush(): Promise<void> {
    const next = this.flushing.then(() => this.write());
    this.flushing = next.catch(() => {});
    return next;
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    try {
      await addCounts(this.db, rows);
    } catch (err) {
      // Kept for the next flush rather than lost (a form deleted meanwhile has no row to add to).
      for (const r of rows) {
        const key = `${r.formId}|${r.day}`;
        const now = this.pending.get(key);
        if (now) {
          now.views += r.views;
          now.submissions += r.submissions;
          now.confirmations += r.confirmations;
        } else this.pending.set(key, r);
      }
      throw err;
    }
  }
}

/** Adds counts to the day rows of forms that still exist (a deleted form's counts are dropped). */
async function addCounts(ex: Executor, rows: Pending[]): Promise<void> {
  await run(
    ex,
    sql`insert into form_daily_stats (form_id, day, views, submissions, confirmations)
      select c.form_id, c.day, c.views, c.submissions, c.confirmations
      from jsonb_to_recordset(${JSON.stringify(rows.map((r) => ({ form_id: r.formId, day: r.day, views: r.views, submissions: r.submissions, confirmations: r.confirmations })))}::jsonb)
        as c(form_id uuid, day date, views bigint, submissions bigint, confirmations bigint)
      where exists (select 1 from forms f where f.id = c.form_id)
      order by c.form_id, c.day
      on conflict (form_id, day) do update set views = form_daily_stats.views + excluded.views,
        submissions = form_daily_stats.submissions + excluded.submissions,
        confirmations = form_daily_stats.confirmations + excluded.confirmations`,
  );
}

export interface DayCounts {
  day: string;
  views: number;
  submissions: number;
  confirmations: number;
}

/** Every day from `from` to `to` (UTC dates, inclusive), with zeros for the days without a row. */
export async function dailyCounts(ex: Executor, formId: string, from: string, to: string): Promise<DayCounts[]> {
  const r = await run<DayCounts>(
    ex,
    sql`select to_char(d.day, 'YYYY-MM-DD') as day, coalesce(s.views, 0)::int as views,
        coalesce(s.submissions, 0)::int as submissions, coalesce(s.confirmations, 0)::int as confirmations
      from generate_series(${from}::date, ${to}::date, interval '1 day') as d(day)
      left join form_daily_stats s on s.form_id = ${formId} and s.day = d.day::date
      order by d.day`,
  );
  return r.rows;
}

/** The process's one counter (the public routes count, the stats answer flushes it first). */
const counters = new WeakMap<AppContext, FormStatsCounter>();
export function formStatsCounter(ctx: AppContext): FormStatsCounter {
  let counter = counters.get(ctx);
  if (!counter) {
    counter = new FormStatsCounter(ctx.db, ctx.clock, (err) =>
      ctx.log.warn({ err }, 'signup form statistics not written yet; kept for the next try'),
    );
    counters.set(ctx, counter);
  }
  return counter;
}

import { type SQL, sql } from 'drizzle-orm';
import { type Database, type Db, type Executor, run } from './client.js';

/**
 * Monthly partitions of a table partitioned by range of `created_at` (docs/decisions.md, "Events
 * partitioned by month"). The table has a default partition, `<table>_default`, for rows no month
 * partition holds yet; each partition has a unique index on `id` of its own, since the parent's
 * keys would have to include `created_at`. A table converted in place keeps its old rows in
 * `<table>_unpartitioned` (its migration says how): `sealUnpartitioned` makes that the partition
 * of everything before a bound, one resumable step at a time.
 */

/** Months of partitions made ahead of the current one, so a missed run or two costs nothing. */
export const MONTHS_AHEAD = 3;
const LOCK_TIMEOUT = sql.raw(`set local lock_timeout = '5s'`);
/** An advisory lock of its own, beside the migrations' (727_001). */
const PARTITIONS_LOCK = 727_002;

export interface Partition {
  name: string;
  /** Null for the default partition and for the lower end of the sealed old table (MINVALUE). */
  from: Date | null;
  /** Null for the default partition. */
  to: Date | null;
  isDefault: boolean;
}

export async function partitionsOf(ex: Executor, table: string): Promise<Partition[]> {
  const r = await run<{ name: string; bound: string; from_at: Date | null; to_at: Date | null }>(
    ex,
    sql`
    select c.relname as name, b.bound,
      substring(b.bound from 'FROM [(]''([^'']*)''[)]')::timestamptz as from_at,
      substring(b.bound from 'TO [(]''([^'']*)''[)]')::timestamptz as to_at
    from pg_inherits i join pg_class c on c.oid = i.inhrelid,
      lateral (select pg_get_expr(c.relpartbound, c.oid) as bound) b
    where i.inhparent = ${table}::regclass
    order by to_at nulls last`,
  );
  return r.rows.map((p) => ({
    name: p.name,
    from: p.from_at ? new Date(p.from_at) : null,
    to: p.to_at ? new Date(p.to_at) : null,
    isDefault: p.bound === 'DEFAULT',
  }));
}

export function monthStart(at: Date, plusMonths = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + plusMonths, 1));
}

function monthName(table: string, from: Date): string {
  return `${table}_${from.getUTCFullYear()}_${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
}

const ident = (name: string) => sql.raw(`"${name.replaceAll('"', '""')}"`);

/**
 * Keeps `table`'s partitions ahead of time: finishes the conversion of a table from before
 * partitioning (each step resumable), then makes the months to come.
 */
export async function maintainPartitions(
  database: Database,
  table: string,
  now: Date,
): Promise<{ sealed: string[]; made: string[] }> {
  const sealed = await sealUnpartitioned(database, table, now);
  const made = await ensureMonthsAhead(database.db, table, now, MONTHS_AHEAD);
  return { sealed, made };
}

/**
 * Makes the partitions of the month of `now` and the `ahead` months after it, where no partition
 * covers them yet. Rows of such a month already in the default partition move into the new
 * partition in the same transaction. Nothing is made while the old table of a conversion is still
 * the default partition: a new partition would have to scan it under lock.
 */
export async function ensureMonthsAhead(db: Db, table: string, now: Date, ahead: number): Promise<string[]> {
  const made: string[] = [];
  for (let i = 0; i <= ahead; i++) {
    const from = monthStart(now, i);
    const to = monthStart(now, i + 1);
    const name = monthName(table, from);
    const created = await db.transaction(async (tx) => {
      await lockPartitionsOf(tx, table);
      const partitions = await partitionsOf(tx, table);
      if (partitions.some((p) => p.isDefault && p.name === `${table}_unpartitioned`)) return false;
      const covered = partitions.some(
        (p) => !p.isDefault && (p.from === null || p.from < to) && p.to !== null && p.to > from,
      );
      if (covered) return false;
      const defaultPartition = partitions.find((p) => p.isDefault);
      // The attach below locks the tables the foreign keys reference (share row exclusive) and the
      // default partition (access exclusive). Both are taken first, in the order writers take them
      // (a contact, then its events), so a writer never waits in a cycle with this transaction.
      // With a default partition, rows may move out of it: the parent is locked too, since a reader
      // that had already listed the partitions would otherwise miss the moved rows.
      for (const referenced of await referencedTables(tx, table))
        await run(tx, sql`lock table ${ident(referenced)} in share row exclusive mode`);
      if (defaultPartition) {
        await run(tx, sql`lock table ${ident(table)} in access exclusive mode`);
        await run(tx, sql`lock table ${ident(defaultPartition.name)} in access exclusive mode`);
      }
      await run(tx, sql`create table ${ident(name)} (like ${ident(table)} including defaults)`);
      // A valid constraint of the new table's own spares the attach a scan of it.
      await run(
        tx,
        sql`alter table ${ident(name)} add constraint ${ident(`${name}_range`)}
          check (created_at >= ${literal(from)} and created_at < ${literal(to)})`,
      );
      await run(tx, sql`create unique index ${ident(`${name}_id`)} on ${ident(name)} (id)`);
      if (defaultPartition) {
        await run(
          tx,
          sql`with moved as (delete from ${ident(defaultPartition.name)}
              where created_at >= ${literal(from)} and created_at < ${literal(to)} returning *)
            insert into ${ident(name)} select * from moved`,
        );
      }
      await run(
        tx,
        sql`alter table ${ident(table)} attach partition ${ident(name)} for values from (${literal(from)}) to (${literal(to)})`,
      );
      return true;
    });
    if (created) made.push(name);
  }
  return made;
}

/**
 * Makes the rest of the transaction the only change to `table`'s partitions (workers running the
 * maintenance at once take turns), and makes it give up rather than queue the table's readers
 * behind a lock it waits for.
 */
async function lockPartitionsOf(tx: Executor, table: string): Promise<void> {
  await run(tx, sql`select pg_advisory_xact_lock(${PARTITIONS_LOCK}, hashtext(${table}))`);
  await run(tx, LOCK_TIMEOUT);
}

/** The tables `table`'s foreign keys reference, by name. */
async function referencedTables(tx: Executor, table: string): Promise<string[]> {
  const r = await run<{ name: string }>(
    tx,
    sql`select distinct c.relname as name from pg_constraint k join pg_class c on c.oid = k.confrelid
      where k.conrelid = ${table}::regclass and k.contype = 'f' order by 1`,
  );
  return r.rows.map((row) => row.name);
}

/** A timestamp written into DDL, which takes no parameters. */
const literal = (at: Date) => sql.raw(`'${at.toISOString()}'::timestamptz`);

/**
 * Drops, whole, every partition all of whose rows are older than `cutoff` (the default partition
 * never), except one holding a row that matches `keepWhile`: that one waits for a later run. Each
 * drop waits at most the lock timeout for the table's readers, and is tried again on the next run
 * when it gives up.
 */
export async function dropPartitionsBefore(db: Db, table: string, cutoff: Date, keepWhile?: SQL): Promise<string[]> {
  return db.transaction(async (tx) => {
    await lockPartitionsOf(tx, table);
    const dropped: string[] = [];
    for (const p of await partitionsOf(tx, table)) {
      if (p.isDefault || p.to === null || p.to > cutoff) continue;
      if (
        keepWhile &&
        (await run(tx, sql`select 1 from ${ident(p.name)} where (${keepWhile}) limit 1`)).rows.length > 0
      )
        continue;
      await run(tx, sql`alter table ${ident(table)} detach partition ${ident(p.name)}`);
      await run(tx, sql`drop table ${ident(p.name)}`);
      dropped.push(p.name);
    }
    return dropped;
  });
}

/**
 * The steps that turn the old table of a conversion, attached as the default partition, into the
 * partition of everything before a bound two months ahead, with a new, empty default partition.
 * Each step is short or does not block writers, and each is skipped when already done, so the
 * sequence resumes wherever a restart left it:
 * 1. a CHECK constraint `created_at < bound`, NOT VALID (a moment's lock; new rows are checked);
 * 2. its validation: a scan of the old table that blocks no reader or writer;
 * 3. in one transaction, detach the old table, attach it for (MINVALUE, bound) — the validated
 *    constraint proves the range without a scan — and attach a new, empty default partition.
 * Returns the steps it took.
 */
export async function sealUnpartitioned(database: Database, table: string, now: Date): Promise<string[]> {
  const old = `${table}_unpartitioned`;
  const constraint = `${old}_bound`;
  const steps: string[] = [];
  const partitions = await partitionsOf(database.db, table);
  if (!partitions.some((p) => p.isDefault && p.name === old)) return steps;

  const existing = await boundConstraint(database.db, constraint);
  if (!existing) {
    // Two months ahead: rows stamped before the bound keep going to the old table until the last step.
    const bound = monthStart(now, 2);
    const added = await database.db.transaction(async (tx) => {
      await lockPartitionsOf(tx, table);
      if (await boundConstraint(tx, constraint)) return false;
      await run(
        tx,
        sql`alter table ${ident(old)} add constraint ${ident(constraint)} check (created_at < ${literal(bound)}) not valid`,
      );
      return true;
    });
    if (added) steps.push('constrained');
  }
  const sealed = existing ?? (await boundConstraint(database.db, constraint))!;
  if (!sealed.validated) {
    await database.unbounded((db) => run(db, sql`alter table ${ident(old)} validate constraint ${ident(constraint)}`));
    steps.push('validated');
  }
  const attached = await database.db.transaction(async (tx) => {
    await lockPartitionsOf(tx, table);
    const current = await partitionsOf(tx, table);
    if (!current.some((p) => p.isDefault && p.name === old)) return false;
    await run(tx, sql`alter table ${ident(table)} detach partition ${ident(old)}`);
    await run(
      tx,
      sql`alter table ${ident(table)} attach partition ${ident(old)} for values from (minvalue) to (${literal(sealed.bound)})`,
    );
    const fresh = `${table}_default`;
    await run(tx, sql`create table ${ident(fresh)} (like ${ident(table)} including defaults)`);
    await run(tx, sql`create unique index ${ident(`${fresh}_id`)} on ${ident(fresh)} (id)`);
    await run(tx, sql`alter table ${ident(table)} attach partition ${ident(fresh)} default`);
    return true;
  });
  if (attached) steps.push('attached');
  return steps;
}

async function boundConstraint(ex: Executor, name: string): Promise<{ bound: Date; validated: boolean } | undefined> {
  const r = await run<{ bound: Date; validated: boolean }>(
    ex,
    sql`
    select substring(pg_get_constraintdef(oid) from '''([^'']*)''')::timestamptz as bound, convalidated as validated
    from pg_constraint where conname = ${name} and contype = 'c'`,
  );
  const row = r.rows[0];
  return row ? { bound: new Date(row.bound), validated: row.validated } : undefined;
}

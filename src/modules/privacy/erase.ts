import { sql } from 'drizzle-orm';
import { erasedAddressHash } from '../../domain/erasure.js';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import { type Executor, run } from '../../platform/db/client.js';
import { notFound } from '../../platform/http/errors.js';
import { enqueue, type Job, JobInterrupted } from '../../platform/queue.js';
import * as audit from '../audit/service.js';
import { ERASE_STEPS, type EraseTarget, eraseTotal } from './erase-steps.js';
import { emailsOf, inboundEmailsOf, receivedMailDeliveriesOf } from './person-rows.js';
import type { EraseJob } from './schemas.js';

/**
 * `POST /contacts/{id}/erase` (docs/decisions.md, "Export, erase and retention"). The request does
 * at once what must not wait: the contact loses its address, its data and its subscription, and the
 * address's salted hash is kept (unless the project says not to), all in one transaction. The rest of
 * its history goes in a job, in small batches (erase-steps.ts), with its progress in `contact_jobs`.
 */

export const ERASE_QUEUE = 'contacts.erase';
/** Rows per statement: each a short transaction that holds few row locks and never a table lock. */
export const ERASE_BATCH = 2_000;

export const HASH_PURPOSE =
  'Only a salted hash (HMAC-SHA256) of the address is kept, so that an import, /v1/track, the API or a form cannot store the address in this project again. It cannot be turned back into the address. A project admin can turn this off in the privacy settings.';
const NO_HASH = 'Nothing of the address is kept: it can be added to this project again.';

interface EraseRow {
  id: string;
  project_id: string;
  status: EraseJob['status'];
  input: { contactId: string; email?: string; hashKept?: boolean };
  total: number;
  processed: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

function toEraseJob(row: EraseRow): EraseJob {
  return {
    id: row.id,
    contactId: row.input.contactId,
    status: row.status,
    total: row.total,
    processed: row.processed,
    progress:
      row.status === 'completed'
        ? 1
        : row.total === 0
          ? 0
          : Math.min(1, Math.round((row.processed / row.total) * 1000) / 1000),
    createdAt: iso(row.created_at)!,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}

const latestErase = async (ex: Executor, projectId: string, contactId: string) =>
  (
    await run<EraseRow>(
      ex,
      sql`select * from contact_jobs where project_id = ${projectId} and kind = 'erase'
        and input->>'contactId' = ${contactId} order by created_at desc limit 1`,
    )
  ).rows[0];

/** The address an erased contact has until the job removes it: unique, and not an address of anyone. */
export const placeholderAddress = (contactId: string) => `erased-${contactId}@erased.invalid`;

/**
 * Starts the erase of a contact, or answers the one already asked for (any number of requests make
 * one erase): 404 for a contact the project has never had.
 */
export async function requestErase(ctx: AppContext, projectId: string, contactId: string) {
  return ctx.db.transaction(async (tx) => {
    const contact = (
      await run<{ email: string }>(
        tx,
        sql`select email from contacts where project_id = ${projectId} and id = ${contactId} for update`,
      )
    ).rows[0];
    const earlier = await latestErase(tx, projectId, contactId);
    if (earlier) return { job: toEraseJob(earlier), hashKept: earlier.input.hashKept ?? false, started: false };
    if (!contact) throw notFound('Contact');
    const now = ctx.clock.now();
    const keepsHash = (
      await run<{ keep: boolean }>(tx, sql`select erase_keeps_hash as keep from projects where id = ${projectId}`)
    ).rows[0]!.keep;
    if (keepsHash) {
      await run(
        tx,
        sql`insert into erased_addresses (project_id, address_hash, erased_at)
          values (${projectId}, ${erasedAddressHash(ctx.erasureSalt, projectId, contact.email)}, ${now}) on conflict do nothing`,
      );
    }
    const email = contact.email.toLowerCase();
    const total = await eraseTotal(tx, { projectId, contactId, email });
    // Nothing marketing or personal from here on: the job only removes what is left.
    await run(
      tx,
      sql`update contacts set email = ${placeholderAddress(contactId)}, data = '{}'::jsonb, subscribed = false,
        snoozed_until = null, updated_at = ${now} where id = ${contactId}`,
    );
    // The address waits in the job's input only until the job ends (it finds what the address names).
    const input = { contactId, email, hashKept: keepsHash };
    const row = (
      await run<EraseRow>(
        tx,
        sql`insert into contact_jobs (project_id, kind, input, total, created_at)
          values (${projectId}, 'erase', ${JSON.stringify(input)}::jsonb, ${total}, ${now}) returning *`,
      )
    ).rows[0]!;
    await enqueue(tx, ERASE_QUEUE, { jobId: row.id });
    await audit.record(tx, {
      projectId,
      action: 'contact.erase_requested',
      target: { type: 'contact', id: contactId },
      changes: { rows: total, addressHashKept: keepsHash },
    });
    return { job: toEraseJob(row), hashKept: keepsHash, started: true };
  });
}

/** What `POST /contacts/{id}/erase` answers. */
export function eraseAnswer(r: Awaited<ReturnType<typeof requestErase>>) {
  const message =
    r.job.status === 'completed'
      ? 'The contact was erased.'
      : r.started
        ? 'The contact is being erased: its address and data are gone already, its history follows.'
        : 'The contact is already being erased.';
  return {
    success: true as const,
    data: {
      ...r.job,
      jobId: r.job.id,
      addressHash: { kept: r.hashKept, purpose: r.hashKept ? HASH_PURPOSE : NO_HASH },
    },
    message,
  };
}

export async function getErase(ctx: AppContext, projectId: string, jobId: string): Promise<EraseJob> {
  const row = (
    await run<EraseRow>(
      ctx.db,
      sql`select * from contact_jobs where project_id = ${projectId} and id = ${jobId} and kind = 'erase'`,
    )
  ).rows[0];
  if (!row) throw notFound('Erase');
  return toEraseJob(row);
}

/** Thrown while rows are held by another worker (an email being delivered): the job retries soon. */
class RowsStillHeld extends Error {
  override name = 'RowsStillHeld';
}

/**
 * The job: every step in batches until it has nothing left, then the contact itself, and the job's
 * input loses the address. Killed at any point, it resumes with what is left.
 */
export async function runErase(ctx: AppContext, jobId: string, job: Pick<Job, 'heartbeat' | 'signal'>): Promise<void> {
  const row = (await run<EraseRow>(ctx.db, sql`select * from contact_jobs where id = ${jobId}`)).rows[0];
  if (!row || row.status === 'completed' || !row.input.email) return;
  await run(
    ctx.db,
    sql`update contact_jobs set status = 'running', started_at = coalesce(started_at, ${ctx.clock.now()})
      where id = ${jobId}`,
  );
  const target: EraseTarget = {
    projectId: row.project_id,
    contactId: row.input.contactId,
    email: row.input.email,
    now: ctx.clock.now(),
  };
  for (const step of ERASE_STEPS) {
    for (;;) {
      if (job.signal.aborted) throw new JobInterrupted();
      const n = await ctx.db.transaction(async (tx) => {
        // The contact first, as deleting it (DELETE /contacts/{id}) takes it first and then its rows
        // by cascade: the two wait for each other in one order, never in a cycle.
        await run(tx, sql`select 1 from contacts where id = ${target.contactId} for key share`);
        const done = await step.batch(tx, target, ERASE_BATCH);
        if (step.counted && done > 0)
          await run(tx, sql`update contact_jobs set processed = least(total, processed + ${done}) where id = ${jobId}`);
        return done;
      });
      await job.heartbeat();
      // Lets other requests in between batches (the embedded database has few connections).
      await new Promise((resolve) => setImmediate(resolve));
      if (n < ERASE_BATCH) break;
    }
  }
  await ctx.db.transaction(async (tx) => {
    // An email being delivered right now was skipped: the contact waits for it (the job retries).
    const held = await run(
      tx,
      sql`select 1 from emails where ${emailsOf(target)}
        union all select 1 from inbound_emails where ${inboundEmailsOf(target)}
        union all select 1 from webhook_deliveries where ${receivedMailDeliveriesOf(target)} limit 1`,
    );
    if (held.rows.length > 0) throw new RowsStillHeld('Some of the person’s mail is being delivered; retrying');
    // What arrived since the last batches (an event recorded meanwhile) goes with the contact, by cascade.
    await run(tx, sql`delete from contacts where id = ${target.contactId} and project_id = ${target.projectId}`);
    const finished = await run(
      tx,
      sql`update contact_jobs set status = 'completed', processed = total, finished_at = ${ctx.clock.now()},
        input = jsonb_build_object('contactId', ${target.contactId}::text, 'hashKept', ${row.input.hashKept ?? false}::boolean)
      where id = ${jobId} and status <> 'completed' returning total`,
    );
    if (finished.rows.length === 0) return;
    await audit.record(tx, {
      projectId: target.projectId,
      action: 'contact.erased',
      target: { type: 'contact', id: target.contactId },
      changes: { rows: (finished.rows[0] as { total: number }).total },
      actor: { kind: 'system' },
    });
  });
}

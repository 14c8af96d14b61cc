import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import { emailsOf, inboundEmailsOf, type Person, receivedMailDeliveriesOf } from './person-rows.js';

/**
 * What an erase removes, table by table (docs/decisions.md, "Export, erase and retention"). Each
 * step removes up to `limit` more of the person's rows (the contact's, and those of its address
 * linked to no contact: person-rows.ts) in one short statement and says how many it did; the erase
 * runs it again until it does fewer than `limit`. Every step can run any number of times: a job
 * killed between two batches resumes where it was. Rows locked by another worker (an
 * email being delivered, an execution being run) are skipped and met again on a later pass.
 *
 * The aggregate counts stay: `event_daily_counts`, the campaigns' counters and engagement, link
 * clicks. The rows some reports count from (emails, campaign recipients) are kept without anything
 * about the person instead of being deleted. Adding a table is one entry here.
 */

/** The person with the address their contact had before the erase anonymised it. */
export interface EraseTarget extends Person {
  now: Date;
}

export interface EraseStep {
  name: string;
  batch(ex: Executor, target: EraseTarget, limit: number): Promise<number>;
  /** Counted in the job's progress (the rows that make a large history). */
  counted?: boolean;
}

/** Runs a statement that returns a row per row it removed or changed; says how many. */
const count = async (ex: Executor, statement: SQL) => (await run(ex, statement)).rows.length;

/**
 * Deletes up to `limit` rows of `table` that match `where`, passing over rows another worker holds
 * (they are met again on a later pass); says how many it deleted.
 */
const deleteBatch = (ex: Executor, table: string, where: SQL, limit: number) =>
  count(
    ex,
    sql`delete from ${sql.identifier(table)} where id in (
      select id from ${sql.identifier(table)} where ${where} limit ${limit} for update skip locked)
    returning 1`,
  );

export const ERASE_STEPS: EraseStep[] = [
  // Events (oldest first, by the index on contact and time), with the webhook deliveries that carry
  // them. The daily counts are not touched: the statistics keep counting them.
  {
    name: 'events',
    counted: true,
    batch: (ex, t, limit) =>
      count(
        ex,
        sql`
        with batch as (
          select id, created_at from events where contact_id = ${t.contactId} and project_id = ${t.projectId}
          order by created_at, id limit ${limit}),
        deliveries as (delete from webhook_deliveries where event_id in (select id from batch))
        delete from events e using batch b
        where e.contact_id = ${t.contactId} and e.id = b.id and e.created_at = b.created_at returning 1`,
      ),
  },
  // Emails stay as rows (their status, times and counters feed campaign and A/B figures), emptied of
  // the recipient and the content, and linked to no contact. One still queued is not sent.
  {
    name: 'emails',
    counted: true,
    batch: (ex, t, limit) =>
      count(
        ex,
        sql`
        update emails set contact_id = null, to_email = '', to_name = null, subject = '', html = '', text = null,
          headers = '{}'::jsonb, attachments = null, smtp_response = null, last_error = null,
          status = case when status = 'queued' then 'failed' else status end,
          failed_at = case when status = 'queued' then ${t.now} else failed_at end,
          content_removed_at = ${t.now}, updated_at = ${t.now}
        where id in (select id from emails where ${emailsOf(t)} limit ${limit} for update skip locked)
        returning 1`,
      ),
  },
  {
    name: 'inboundEmails',
    counted: true,
    batch: (ex, t, limit) => deleteBatch(ex, 'inbound_emails', inboundEmailsOf(t), limit),
  },
  {
    name: 'receivedMailDeliveries',
    batch: (ex, t, limit) => deleteBatch(ex, 'webhook_deliveries', receivedMailDeliveriesOf(t), limit),
  },
  // Executions go with their steps (by cascade).
  {
    name: 'workflowExecutions',
    counted: true,
    batch: (ex, t, limit) =>
      deleteBatch(ex, 'workflow_executions', sql`contact_id = ${t.contactId} and project_id = ${t.projectId}`, limit),
  },
  // Campaign recipients stay, for the campaigns' reports, under a random id that leads nowhere.
  {
    name: 'campaignRecipients',
    batch: (ex, t) =>
      count(
        ex,
        sql`
        update campaign_recipients r set contact_id = gen_random_uuid()
        where r.contact_id = ${t.contactId}
          and r.campaign_id in (select id from campaigns where project_id = ${t.projectId})
        returning 1`,
      ),
  },
  {
    name: 'segmentMemberships',
    batch: (ex, t) => count(ex, sql`delete from segment_members where contact_id = ${t.contactId} returning 1`),
  },
  {
    name: 'formSignups',
    batch: (ex, t) => count(ex, sql`delete from form_signups where contact_id = ${t.contactId} returning 1`),
  },
  // The consent history, with the addresses and browsers it kept: what it proved goes with the person.
  {
    name: 'consentRecords',
    batch: (ex, t) => count(ex, sql`delete from consent_records where contact_id = ${t.contactId} returning 1`),
  },
  {
    name: 'topicChoices',
    batch: (ex, t) => count(ex, sql`delete from contact_topics where contact_id = ${t.contactId} returning 1`),
  },
  // The address on the suppression list: the salted hash replaces it (or nothing, if the project says so).
  {
    name: 'suppressions',
    batch: (ex, t) =>
      count(ex, sql`delete from suppressions where project_id = ${t.projectId} and email = ${t.email} returning 1`),
  },
  // Jobs about the contact (the end of a snooze).
  {
    name: 'jobs',
    batch: (ex, t) =>
      count(
        ex,
        sql`delete from jobs where queue = 'contacts.snooze-end' and state = 'queued'
          and payload->>'contactId' = ${t.contactId} returning 1`,
      ),
  },
  // Kept answers of idempotent requests that show the address (POST /contacts answers with it).
  {
    name: 'idempotencyKeys',
    batch: (ex, t) =>
      count(
        ex,
        sql`delete from idempotency_keys where project_id = ${t.projectId}
          and strpos(response::text, ${t.email}) > 0 returning 1`,
      ),
  },
  // Finished imports keep their file and their errors: the file goes, and the errors naming the address.
  {
    name: 'importFiles',
    batch: (ex, t) =>
      count(
        ex,
        sql`
        update contact_jobs set input = input - 'csv',
          errors = coalesce((select jsonb_agg(e) from jsonb_array_elements(errors) e
            where strpos(lower(e::text), ${t.email}) = 0), '[]'::jsonb)
        where project_id = ${t.projectId} and kind = 'import' and status in ('completed', 'failed')
          and strpos(lower(input::text || errors::text), ${t.email}) > 0
        returning 1`,
      ),
  },
  // Audit entries name a suppression by its address: the name goes (`erased`), the entry stays. The
  // audit log's trigger lets this one update through (migration 0052).
  {
    name: 'auditTargets',
    batch: async (ex, t) => {
      await run(ex, sql`select set_config('postbox.audit_erase', 'on', true)`);
      return count(
        ex,
        sql`update audit_log set target_id = 'erased'
          where project_id = ${t.projectId} and target_type = 'suppression' and target_id = ${t.email} returning 1`,
      );
    },
  },
];

/** The rows of the counted steps an erase has ahead of it: the total of its progress. */
export async function eraseTotal(ex: Executor, t: Person): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select
      (select count(*) from events where contact_id = ${t.contactId} and project_id = ${t.projectId})
      + (select count(*) from emails where ${emailsOf(t)})
      + (select count(*) from inbound_emails where ${inboundEmailsOf(t)})
      + (select count(*) from workflow_executions where contact_id = ${t.contactId} and project_id = ${t.projectId})
      as n`,
  );
  return Number(r.rows[0]!.n);
}

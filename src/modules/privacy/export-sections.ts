import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import { emailsOf, inboundEmailsOf, type Person } from './person-rows.js';

/**
 * What `GET /contacts/{id}/export` holds about a contact, section by section (docs/decisions.md,
 * "Export, erase and retention"). A section reads its rows a page at a time, in the order of a key
 * it returns with each row, so a contact with 100,000 events is streamed, never held in memory.
 * Adding a kind of row is one entry of `EXPORT_SECTIONS`.
 */

/** The key of a row in its section's order (a time and an id, or an id): where the next page starts. */
export type PageKey = (string | number)[];

export interface ExportSection {
  /** The property of the export document that holds the section's rows. */
  name: string;
  /** Up to `limit` rows after `after` (null: from the first), each with its key. */
  page(ex: Executor, target: Person, after: PageKey | null, limit: number): Promise<{ key: PageKey; row: unknown }[]>;
}

type Row = Record<string, unknown> & { _k1: unknown; _k2: unknown };

/**
 * A section from a query of the contact's rows that selects `_k1` (a time) and `_k2` (an id) as
 * their order. The query is a plain subquery, so PostgreSQL applies the page's condition and order
 * inside it, on its indexes.
 */
function keyed(name: string, query: (t: Person) => SQL): ExportSection {
  return {
    name,
    async page(ex, target, after, limit) {
      const condition = after ? sql`where (_k1, _k2) > (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql``;
      const r = await run<Row>(
        ex,
        sql`select * from (${query(target)}) s ${condition} order by _k1, _k2 limit ${limit}`,
      );
      return r.rows.map(({ _k1, _k2, ...row }) => ({ key: [new Date(_k1 as string).toISOString(), String(_k2)], row }));
    },
  };
}

export const EXPORT_SECTIONS: ExportSection[] = [
  // Everything tracked or recorded about the contact (their subscription changes, deliveries, opens, clicks).
  {
    name: 'events',
    async page(ex, t, after, limit) {
      const r = await run<{ id: string; name: string; data: unknown; created_at: Date }>(
        ex,
        sql`select id, name, data, created_at from events
          where contact_id = ${t.contactId} and project_id = ${t.projectId}
            and ${after ? sql`(created_at, id) > (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql`true`}
          order by created_at, id limit ${limit}`,
      );
      return r.rows.map((e) => {
        const createdAt = new Date(e.created_at).toISOString();
        return { key: [createdAt, e.id], row: { id: e.id, name: e.name, data: e.data, createdAt } };
      });
    },
  },
  // The emails sent to the person, with their content as sent.
  keyed(
    'emails',
    (t) => sql`
      select created_at as _k1, id as _k2, id, type, status, campaign_id as "campaignId", template_id as "templateId",
        from_email as "fromEmail", from_name as "fromName", to_email as "toEmail", to_name as "toName",
        reply_to as "replyTo", subject, html, text, headers, message_id as "messageId",
        created_at as "createdAt", sent_at as "sentAt", opened_at as "openedAt", clicked_at as "clickedAt",
        open_count as "openCount", click_count as "clickCount", bounced_at as "bouncedAt",
        bounce_type as "bounceType", complained_at as "complainedAt", failed_at as "failedAt",
        content_removed_at as "contentRemovedAt"
      from emails where ${emailsOf(t)}`,
  ),
  // Mail the person sent to the project's inbound address.
  keyed(
    'inboundEmails',
    (t) => sql`
      select received_at as _k1, id as _k2, id, from_email as "fromEmail", from_name as "fromName", "to", subject,
        text, html, message_id as "messageId", in_reply_to_email_id as "inReplyToEmailId", attachments,
        received_at as "receivedAt"
      from inbound_emails where ${inboundEmailsOf(t)}`,
  ),
  // Every change of the contact's subscription: what, how, by whom, from where, the text shown.
  keyed(
    'consentHistory',
    (t) => sql`
      select at as _k1, id as _k2, id, at, change, topic_id as "topicId", source, source_id as "sourceId",
        actor, actor_name as "actorName", ip, user_agent as "userAgent", consent_text as "consentText"
      from consent_records where contact_id = ${t.contactId} and project_id = ${t.projectId}`,
  ),
  // Each topic of the project and whether the contact receives it: by their own choice, or by its default.
  keyed(
    'topics',
    (t) => sql`
      select tp.created_at as _k1, tp.id as _k2, tp.id, tp.name, coalesce(ct.subscribed, tp.default_on) as subscribed,
        ct.subscribed is not null as chosen, ct.updated_at as "chosenAt"
      from topics tp left join contact_topics ct on ct.topic_id = tp.id and ct.contact_id = ${t.contactId}
      where tp.project_id = ${t.projectId}`,
  ),
  // Segments the contact is a member of, where membership is kept (static segments, tracked ones).
  keyed(
    'segments',
    (t) => sql`
      select m.created_at as _k1, s.id as _k2, s.id, s.name, s.slug, s.type, m.created_at as "memberSince"
      from segment_members m join segments s on s.id = m.segment_id
      where m.contact_id = ${t.contactId} and s.project_id = ${t.projectId}`,
  ),
  // The campaigns the contact was an audience member of, and what became of it.
  keyed(
    'campaigns',
    (t) => sql`
      select c.created_at as _k1, c.id as _k2, c.id, c.name, r.outcome, r.reason, r.variant, r.email_id as "emailId"
      from campaigns c join campaign_recipients r on r.campaign_id = c.id and r.contact_id = ${t.contactId}
      where c.project_id = ${t.projectId}`,
  ),
  // Workflow executions for the contact, with each step they ran.
  keyed(
    'workflowExecutions',
    (t) => sql`
      select x.started_at as _k1, x.id as _k2, x.id, x.workflow_id as "workflowId", w.name as "workflowName",
        x.status, x.context, x.started_at as "startedAt", x.finished_at as "finishedAt",
        coalesce((select jsonb_agg(jsonb_build_object('stepType', st.step_type, 'status', st.status,
            'branch', st.branch, 'output', st.output, 'error', st.error,
            'startedAt', st.started_at, 'finishedAt', st.finished_at) order by st.id)
          from workflow_execution_steps st where st.execution_id = x.id), '[]'::jsonb) as steps
      from workflow_executions x join workflows w on w.id = x.workflow_id
      where x.contact_id = ${t.contactId} and x.project_id = ${t.projectId}`,
  ),
  // A signup through a form: what it collected, the consent text shown, and its confirmation.
  keyed(
    'formSignups',
    (t) => sql`
      select s.created_at as _k1, s.form_id as _k2, s.form_id as "formId", f.name as "formName", s.data,
        s.consent_text as "consentText", s.locale, s.created_at as "createdAt",
        s.confirmation_sent_at as "confirmationSentAt", s.confirmed_at as "confirmedAt"
      from form_signups s left join forms f on f.id = s.form_id
      where s.contact_id = ${t.contactId} and s.project_id = ${t.projectId}`,
  ),
  // The address on the project's suppression list, and why.
  keyed(
    'suppressions',
    (t) => sql`
      select created_at as _k1, ${t.contactId}::uuid as _k2, email, reason, detail, email_id as "emailId",
        created_at as "createdAt"
      from suppressions where project_id = ${t.projectId} and email = ${t.email}`,
  ),
];

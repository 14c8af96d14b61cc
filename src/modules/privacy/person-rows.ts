import { type SQL, sql } from 'drizzle-orm';

/**
 * Which rows of mail are a person's, for their export and their erase: those linked to their
 * contact, and those that name their address but are linked to no contact (sent to it or received
 * from it before it was a contact, or after a contact of it was deleted, or sent to it as no contact,
 * like an invitation). Addresses are stored lower-cased; the lookups compare `lower()` of the column,
 * which is what the indexes of migration 0056 hold, so finding them is an index probe, not a scan.
 */

export interface Person {
  projectId: string;
  contactId: string;
  /** Lower-cased. */
  email: string;
}

/** The person's rows of `emails` (a condition on that table alone). */
export const emailsOf = (p: Person): SQL =>
  sql`project_id = ${p.projectId}
    and (contact_id = ${p.contactId} or (contact_id is null and lower(to_email) = ${p.email}))`;

/** The person's rows of `inbound_emails` (a condition on that table alone). */
export const inboundEmailsOf = (p: Person): SQL =>
  sql`project_id = ${p.projectId}
    and (contact_id = ${p.contactId} or (contact_id is null and lower(from_email) = ${p.email}))`;

/**
 * Webhook deliveries that name the address whatever became of their event: `email.received` carries
 * the sender's address, and its delivery stays when the event goes with a deleted contact.
 */
export const receivedMailDeliveriesOf = (p: Person): SQL =>
  sql`event_name = 'email.received' and lower(payload #>> '{data,from}') = ${p.email}
    and webhook_id in (select id from webhooks where project_id = ${p.projectId})`;

/** The Postmark metadata field (`X-PM-Metadata-<name>` on the way out) that holds our email id. */
export const POSTMARK_METADATA_FIELD = 'postbox-email-id';
const POSTMARK_HEADER = `X-PM-Metadata-${POSTMARK_METADATA_FIELD}`;
/** Brevo keeps this header's value and reports it back with each event. */
const BREVO_HEADER = 'X-Mailin-custom';

/**
 * The headers a message leaves with so that the relay's webhooks can name it: Postmark and Brevo
 * report their own message ids, and ours only when we hand it over as metadata, which they read
 * from these headers (Postmark strips its own before delivery). Added only for the relays this instance takes
 * feedback from (a header meant for one relay would reach recipients through another), and never
 * over a value the sender set.
 */
export function withRelayMetadata(
  headers: Record<string, string>,
  emailId: string,
  relays: { postmark: boolean; brevo: boolean },
): Record<string, string> {
  if (!relays.postmark && !relays.brevo) return headers;
  const given = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const extra: Record<string, string> = {};
  if (relays.postmark && !given.has(POSTMARK_HEADER.toLowerCase())) extra[POSTMARK_HEADER] = emailId;
  if (relays.brevo && !given.has(BREVO_HEADER.toLowerCase())) extra[BREVO_HEADER] = emailId;
  return { ...headers, ...extra };
}

import { POSTMARK_METADATA_FIELD } from './relay-metadata.js';
import type { RelayReport } from './reports.js';

/** Bounce types that are the recipient's server refusing for good. */
const HARD = new Set(['HardBounce', 'BadEmailAddress']);
/** Bounce types that are a refusal Postmark stopped at, not about the address itself. */
const SOFT = new Set(['SoftBounce', 'DnsError', 'SpamNotification', 'Blocked', 'DMARCPolicy']);

/**
 * The report in a Postmark webhook (one JSON object per request). A `Bounce` record is hard when its
 * `Type` is `HardBounce` or `BadEmailAddress`, soft for a refusal that is not about the address
 * (`SoftBounce`, `DnsError`, `SpamNotification`, `Blocked`, `DMARCPolicy`); other types are no
 * failed delivery (`Transient` is a delay Postmark retries; auto-responders, address changes,
 * subscription requests, challenges) and are left out. A `SpamComplaint` record, or a bounce of that
 * type, is an abuse complaint. Null for anything else (deliveries, opens, clicks). The email id comes
 * from the message's metadata: Postmark's MessageID is its own.
 */
export function postmarkReport(record: unknown): RelayReport | null {
  if (!record || typeof record !== 'object') return null;
  // biome-ignore lint/suspicious/noExplicitAny: untyped JSON from Postmark, read with optional chaining
  const r = record as Record<string, any>;
  const recipient = typeof r.Email === 'string' ? r.Email.trim().toLowerCase() : null;
  const emailId = metadataEmailId(r.Metadata);
  if (r.RecordType === 'SpamComplaint' || (r.RecordType === 'Bounce' && r.Type === 'SpamComplaint'))
    return { report: { kind: 'complaint', feedbackType: 'abuse', recipient, originalMessageId: null }, emailId };
  if (r.RecordType !== 'Bounce' || !(HARD.has(r.Type) || SOFT.has(r.Type))) return null;
  const hard = HARD.has(r.Type);
  const details = typeof r.Details === 'string' ? r.Details.replace(/^smtp;\s*/i, '').trim() : '';
  const code = /\b([45])\.\d{1,3}\.\d{1,3}\b/.exec(details)?.[0];
  const status = code?.startsWith(hard ? '5' : '4') ? code : hard ? '5.0.0' : '4.0.0';
  const diagnostic = (details || (typeof r.Description === 'string' ? r.Description : '')).slice(0, 2000) || null;
  return {
    report: {
      kind: 'bounce',
      recipients: [{ recipient, type: hard ? 'hard' : 'soft', status, diagnostic }],
      originalMessageId: null,
    },
    emailId,
  };
}

/** Our email id from the message's `Metadata` (field names compared without case, as SMTP headers are). */
function metadataEmailId(metadata: unknown): string | null {
  if (!metadata || typeof metadata !== 'object') return null;
  for (const [name, value] of Object.entries(metadata))
    if (name.toLowerCase() === POSTMARK_METADATA_FIELD && typeof value === 'string') return value.trim();
  return null;
}

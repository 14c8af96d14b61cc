import { randomBytes } from 'node:crypto';
import { dmarcTags, readDmarcRecord, recommendedDmarc, withReportAddress } from '../../domain/dmarc-record.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import type { Lookup } from '../../platform/dns.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import * as audit from '../audit/service.js';
import type { DomainRow } from './repo.js';
import * as repo from './repo.js';
import type { DnsRecord, Domain, RecordCheck, RecordPurpose } from './schemas.js';

/** For the inbound listener, which takes mail only for the domains it serves. */
export { isRegisteredDomain } from './repo.js';

/** Where DMARC reports for a domain name go: its verified registrations, one per project that verified it. */
export const verifiedDomainsNamed = (ctx: AppContext, domain: string) => repo.verifiedNamed(ctx.db, domain);

/** A domain of the project (for the modules that show data per domain); NOT_FOUND when it is not the project's. */
export async function projectDomain(ctx: AppContext, projectId: string, id: string): Promise<Domain> {
  const row = await repo.findDomain(ctx.db, projectId, id);
  if (!row) throw notFound('Domain');
  return toDomain(ctx, row);
}

/** Notified when a domain is added, deleted or changes verification, so processes drop cached sender states. */
export const DOMAINS_CHANNEL = 'domains_changed';

type Expected = Omit<DnsRecord, 'status' | 'advice' | 'dmarc'>;

/** What each record is for, in one sentence, as the records table shows it. */
const DESCRIPTIONS: Record<RecordPurpose, string> = {
  verification: 'Proves that this project controls the domain.',
  dkim: 'Publishes the key receivers check the signature of each message against (DKIM), which ties the mail to the domain.',
  spf: 'Lists the servers allowed to send mail as the domain (SPF); merge it with an SPF record you already have, as a domain may have only one.',
  'return-path':
    'Brings bounces and complaints to the return path back to Postbox, and aligns SPF with the domain through that return path.',
  dmarc:
    'Tells receivers what to do with mail that fails DKIM and SPF alignment (DMARC) and where to send their daily reports; Gmail and Yahoo require it of bulk senders.',
};

/**
 * The order to publish records in: ownership first, then what authenticates the mail, DMARC last,
 * once DKIM and SPF are in place, so that its first reports already show them passing.
 */
const PUBLISH_ORDER: RecordPurpose[] = ['verification', 'dkim', 'spf', 'return-path', 'dmarc'];

/** The address DMARC aggregate reports for `domain` are sent to; null without the inbound listener. */
export function dmarcReportAddress(ctx: AppContext, domain: string): string | null {
  return ctx.config.inboundSmtpPort === undefined ? null : `${DMARC_LOCAL_PART}@bounces.${domain}`;
}

/** The local part of the DMARC report address, on the `bounces.` subdomain that the inbound listener takes. */
export const DMARC_LOCAL_PART = 'dmarc';

/**
 * The records a domain asks for, in the order they are shown. DKIM and the ownership token are
 * required; SPF, the return-path MX (only offered when inbound mail is on) and DMARC are guidance.
 */
export function expectedRecords(
  ctx: AppContext,
  row: Pick<DomainRow, 'domain' | 'dkim_selector' | 'dkim_public_key' | 'verification_token'>,
): Expected[] {
  const records: Omit<Expected, 'description' | 'step'>[] = [
    {
      type: 'TXT',
      name: `${row.dkim_selector}._domainkey.${row.domain}`,
      value: `v=DKIM1; k=rsa; p=${row.dkim_public_key}`,
      purpose: 'dkim',
      required: true,
    },
    {
      type: 'TXT',
      name: `_postbox.${row.domain}`,
      value: `postbox-verification=${row.verification_token}`,
      purpose: 'verification',
      required: true,
    },
    { type: 'TXT', name: row.domain, value: 'v=spf1 a mx ~all', purpose: 'spf', required: false },
  ];
  if (ctx.config.inboundSmtpPort !== undefined) {
    records.push({
      type: 'MX',
      name: `bounces.${row.domain}`,
      value: `10 ${returnPathHost(ctx)}`,
      purpose: 'return-path',
      required: false,
    });
  }
  records.push({
    type: 'TXT',
    name: `_dmarc.${row.domain}`,
    value: recommendedDmarc(dmarcReportAddress(ctx, row.domain)),
    purpose: 'dmarc',
    required: false,
  });
  const order = PUBLISH_ORDER.filter((p) => records.some((r) => r.purpose === p));
  return records.map((r) => ({ ...r, description: DESCRIPTIONS[r.purpose], step: order.indexOf(r.purpose) + 1 }));
}

const returnPathHost = (ctx: AppContext) => new URL(ctx.config.publicUrl).hostname;

/** A record as shown: its last check's status, what to do about it, and for DMARC the record in force. */
function presentRecord(ctx: AppContext, row: DomainRow, record: Expected): DnsRecord {
  const check = row.checks[record.purpose];
  const status = check?.status ?? 'pending';
  if (record.purpose === 'dmarc') return presentDmarc(ctx, row, record, check);
  const advice =
    status === 'verified'
      ? null
      : status === 'failed' && check?.found
        ? 'A record with a different value is published: replace it with the value shown.'
        : status === 'failed'
          ? 'The DNS lookup failed; it is tried again at the next check.'
          : record.required
            ? 'Publish this record at your DNS provider; sending waits for it.'
            : 'Publish this record at your DNS provider.';
  return { ...record, status, advice, dmarc: null };
}

function presentDmarc(ctx: AppContext, row: DomainRow, record: Expected, check: RecordCheck | undefined): DnsRecord {
  const address = dmarcReportAddress(ctx, row.domain);
  const published = check?.found?.length === 1 ? check.found[0]! : null;
  const inForce = published ? readDmarcRecord(published) : null;
  const dmarc = inForce && {
    ...inForce,
    reportsHere: address !== null && inForce.reportAddresses.includes(address),
  };
  const shown = { ...record, status: check?.status ?? 'pending', dmarc };
  if (!check || (check.status === 'pending' && !dmarc))
    return {
      ...shown,
      advice: 'No DMARC record is published: publish this one, which only monitors (p=none), once DKIM and SPF pass.',
    };
  if (check.status === 'failed')
    return {
      ...shown,
      advice: check.found
        ? 'More than one DMARC record is published, so receivers apply none: keep a single one.'
        : 'The DNS lookup failed; it is tried again at the next check.',
    };
  if (dmarc && address && !dmarc.reportsHere)
    return {
      ...shown,
      // Their record stays in force; the value to publish is theirs with our address added.
      value: withReportAddress(published!, address),
      advice:
        `A DMARC record with p=${dmarc.policy} is published. Keep its policy and add mailto:${address} ` +
        'to its rua tag as a further address (the value shown), so that receivers’ reports reach Postbox.',
    };
  return { ...shown, advice: null };
}

export function toDomain(ctx: AppContext, row: DomainRow): Domain {
  return {
    id: row.id,
    domain: row.domain,
    verified: row.verified,
    verifiedAt: row.verified_at ? new Date(row.verified_at).toISOString() : null,
    checkedAt: row.checked_at ? new Date(row.checked_at).toISOString() : null,
    records: expectedRecords(ctx, row).map((r) => presentRecord(ctx, row, r)),
    projectId: row.project_id,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

const domainExists = (domain: string) =>
  new AppError(409, 'DOMAIN_EXISTS', `The domain ${domain} is already registered to this project`, {
    details: { domain },
    suggestion:
      'Use the existing domain (GET /domains/project/{projectId}), or delete it first to start over with new records.',
  });

/** Registers a domain with a fresh 2048-bit DKIM key, a selector of its own and an ownership token. */
export async function createDomain(ctx: AppContext, projectId: string, domain: string): Promise<Domain> {
  if ((await repo.senderStatus(ctx.db, projectId, domain)).registered) throw domainExists(domain);
  // A 2048-bit key is tens to hundreds of milliseconds of CPU: generated in the worker pool, one at
  // a time behind a queue of 8; when that is full, PoolBusyError answers 503 with Retry-After.
  const { publicKey, privateKey } = await ctx.untrusted.rsaKey();
  try {
    const row = await ctx.db.transaction(async (tx) => {
      const inserted = await repo.insertDomain(tx, {
        projectId,
        domain,
        selector: `pbx${randomBytes(4).toString('hex')}`,
        privateKey,
        publicKey: publicKey.toString('base64'),
        token: randomBytes(16).toString('hex'),
        now: ctx.clock.now(),
      });
      await audit.record(tx, {
        projectId,
        action: 'domain.created',
        target: { type: 'domain', id: inserted.id },
        changes: { domain },
      });
      return inserted;
    });
    await ctx.caches.changed(ctx.db, DOMAINS_CHANNEL);
    return toDomain(ctx, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw domainExists(domain);
    throw err;
  }
}

/** Tenancy: another project's id is answered as if it did not exist. */
export async function listDomains(ctx: AppContext, keyProjectId: string, projectId: string): Promise<Domain[]> {
  if (projectId !== keyProjectId) throw notFound('Project');
  return (await repo.listDomains(ctx.db, projectId)).map((row) => toDomain(ctx, row));
}

export async function deleteDomain(ctx: AppContext, projectId: string, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    if (!(await repo.deleteDomain(tx, projectId, id))) throw notFound('Domain');
    await audit.record(tx, { projectId, action: 'domain.deleted', target: { type: 'domain', id } });
  });
  await ctx.caches.changed(ctx.db, DOMAINS_CHANNEL);
}

export async function verifyDomain(ctx: AppContext, projectId: string, id: string): Promise<Domain> {
  const row = await repo.findDomain(ctx.db, projectId, id);
  if (!row) throw notFound('Domain');
  const checked = await checkDomain(ctx, row);
  if (!checked) throw notFound('Domain');
  return toDomain(ctx, checked);
}

/** `p=` of a DKIM record, with quotes and whitespace removed; null when the text is not DKIM. */
function dkimKey(txt: string): string | null {
  for (const tag of txt.replace(/["\s]/g, '').split(';')) {
    const eq = tag.indexOf('=');
    if (eq > 0 && tag.slice(0, eq) === 'p') return tag.slice(eq + 1);
  }
  return null;
}

const MAX_FOUND = 5;
const shown = (values: string[]) =>
  values.slice(0, MAX_FOUND).map((v) => (v.length > 1000 ? `${v.slice(0, 1000)}…` : v));

/** A lookup error is `failed`; otherwise `verified` when some record matches, else `pending`. */
function judge<T>(
  lookup: Lookup<T>,
  show: (record: T) => string,
  matches: (record: T) => boolean,
  wrong?: (record: T) => boolean,
): RecordCheck {
  if (!lookup.ok) return { status: 'failed', error: lookup.error };
  const found = shown(lookup.records.map(show));
  if (lookup.records.some(matches)) return { status: 'verified', found };
  if (wrong && lookup.records.some(wrong))
    return { status: 'failed', found, error: 'A record with a different value is published' };
  return found.length ? { status: 'pending', found } : { status: 'pending' };
}

/**
 * A DMARC lookup: `verified` when one DMARC record is published and it sends reports here (or,
 * without the inbound listener, when one is published at all); `pending` when none is, or one is
 * without our address; `failed` when the lookup fails or several are published (receivers then
 * apply none, RFC 7489 §6.6.3). `found` holds only the DMARC records.
 */
function judgeDmarc(lookup: Lookup<string>, address: string | null): RecordCheck {
  if (!lookup.ok) return { status: 'failed', error: lookup.error };
  const dmarc = lookup.records.filter((t) => dmarcTags(t) !== null);
  if (dmarc.length === 0) return { status: 'pending' };
  const found = shown(dmarc);
  if (dmarc.length > 1) return { status: 'failed', found, error: 'More than one DMARC record is published' };
  const ours = address === null || readDmarcRecord(dmarc[0]!)!.reportAddresses.includes(address);
  return { status: ours ? 'verified' : 'pending', found };
}

const unquote = (txt: string) => txt.replace(/^"|"$/g, '').trim();
const hostOf = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** Looks up every record of the domain in parallel and stores the outcome; null if the domain is gone. */
export async function checkDomain(ctx: AppContext, row: DomainRow): Promise<DomainRow | null> {
  const records = expectedRecords(ctx, row);
  const outcomes = await Promise.all(
    records.map(async (record): Promise<[RecordPurpose, RecordCheck]> => {
      switch (record.purpose) {
        case 'dkim': {
          const lookup = await ctx.dns.txt(record.name);
          return [
            'dkim',
            judge(
              lookup,
              (t) => t,
              (t) => dkimKey(t) === row.dkim_public_key,
              (t) => dkimKey(t) !== null,
            ),
          ];
        }
        case 'verification': {
          const lookup = await ctx.dns.txt(record.name);
          return [
            'verification',
            judge(
              lookup,
              (t) => t,
              (t) => unquote(t) === record.value,
            ),
          ];
        }
        case 'spf': {
          const lookup = await ctx.dns.txt(record.name);
          return [
            'spf',
            judge(
              lookup,
              (t) => t,
              (t) => /^v=spf1(\s|$)/i.test(unquote(t)),
            ),
          ];
        }
        case 'dmarc':
          return ['dmarc', judgeDmarc(await ctx.dns.txt(record.name), dmarcReportAddress(ctx, row.domain))];
        case 'return-path': {
          const lookup = await ctx.dns.mx(record.name);
          const host = returnPathHost(ctx).toLowerCase();
          return [
            'return-path',
            judge(
              lookup,
              (mx) => `${mx.priority} ${mx.exchange}`,
              (mx) => hostOf(mx.exchange) === host,
            ),
          ];
        }
      }
    }),
  );
  const checks = Object.fromEntries(outcomes);
  // A lookup that could not be made (DNS timeout, refused) says nothing about the records: the
  // domain keeps its state rather than stopping its mail over a resolver outage.
  const unanswered = records.some(
    (r) => r.required && checks[r.purpose]?.status === 'failed' && !checks[r.purpose]?.found,
  );
  const verified = unanswered
    ? row.verified
    : records.every((r) => !r.required || checks[r.purpose]?.status === 'verified');
  const checked = await ctx.db.transaction(async (tx) => {
    const stored = await repo.recordCheck(tx, row.id, { checks, verified, at: ctx.clock.now() });
    // A check that changes whether the domain may send is a change of the project's (by the caller
    // of POST /domains/{id}/verify, or by the recurring check as "system").
    if (stored && stored.verified !== row.verified)
      await audit.record(tx, {
        projectId: row.project_id,
        action: stored.verified ? 'domain.verified' : 'domain.unverified',
        target: { type: 'domain', id: row.id },
        changes: { values: { verified: [row.verified, stored.verified] } },
      });
    return stored;
  });
  if (checked && checked.verified !== row.verified) await ctx.caches.changed(ctx.db, DOMAINS_CHANNEL);
  return checked;
}

const CHECK_PAGE = 100;
/** Domains checked at once: each asks for 3 or 4 records, kept well below what a resolver takes. */
const CHECK_CONCURRENCY = 20;

/**
 * Re-checks every domain of every project (the recurring `verify-domains` job), walking them by id
 * in pages of 100. A domain whose check throws is logged and skipped; the walk goes on. Returns how
 * many domains were checked.
 */
export async function checkAllDomains(ctx: AppContext): Promise<number> {
  let after: string | null = null;
  let checked = 0;
  for (;;) {
    const page = await repo.domainsAfter(ctx.db, after, CHECK_PAGE);
    for (let i = 0; i < page.length; i += CHECK_CONCURRENCY) {
      await Promise.all(
        page.slice(i, i + CHECK_CONCURRENCY).map((row) =>
          checkDomain(ctx, row).then(
            () => void checked++,
            (err) => ctx.log.warn({ err, domainId: row.id }, 'domain check failed'),
          ),
        ),
      );
    }
    if (page.length < CHECK_PAGE) return checked;
    after = page[page.length - 1]!.id;
  }
}

/** The domain of an address: what follows its last `@`, lower-cased. */
export function senderDomain(email: string): string {
  return email
    .slice(email.lastIndexOf('@') + 1)
    .trim()
    .toLowerCase();
}

/**
 * Throws the sender 403 (docs/api-rules.md#sender-403) unless `fromEmail`'s domain is a verified domain of the project.
 * The domain must match exactly: a subdomain of a verified domain is not verified (its mail would
 * not be covered by the DKIM key and ownership record published for the parent).
 *
 * While mail is only captured to the outbox (no SMTP_URL), nothing leaves the machine, so any
 * sender may be used without DNS, except a domain that another project registered: that stays
 * theirs, as it would with a relay.
 */
export async function assertVerifiedSender(
  ctx: AppContext,
  ex: Executor,
  projectId: string,
  fromEmail: string,
): Promise<void> {
  const domain = senderDomain(fromEmail);
  const status = await ctx.caches
    .of<repo.SenderStatus>(DOMAINS_CHANNEL)
    .get(`${projectId}:${domain}`, () => repo.senderStatus(ex, projectId, domain));
  if (status.verified) return;
  if (capturingMail(ctx) && (status.registered || !status.elsewhere)) return;
  const registered = status.registered;
  ctx.log.debug({ projectId, domain, registered }, 'sender domain refused');
  throw new AppError(
    403,
    // The code clients match on for this 403: docs/api-rules.md#sender-403.
    'INTERNAL_SERVER_ERROR',
    registered
      ? `The sender domain ${domain} is registered to this project but not verified yet: ` +
          'its DNS records have not passed the check'
      : `The sender domain ${domain} is not registered to this project`,
    {
      details: { domain, registered, verified: false },
      suggestion: registered
        ? `Publish the DNS records listed for ${domain} (GET /domains/project/{projectId}), ` +
          'then check them with GET /domains/{id}/verify.'
        : `Add ${domain} with POST /domains, publish the DNS records it returns, ` +
          'then check them with GET /domains/{id}/verify.',
    },
  );
}

/** Without a relay, mail is written to the outbox in DATA_DIR and never leaves the machine. */
export function capturingMail(ctx: AppContext): boolean {
  return !ctx.config.smtpUrl;
}

/**
 * The DKIM key to sign mail from `fromEmail` with, or null when its domain is not (or no longer)
 * verified. While mail is captured, the key of a domain not verified yet signs too.
 */
export async function signingKeyFor(
  ctx: AppContext,
  projectId: string,
  fromEmail: string,
): Promise<{ domain: string; selector: string; privateKey: string; returnPathVerified: boolean } | null> {
  const row = await repo.signingKey(ctx.db, projectId, senderDomain(fromEmail), capturingMail(ctx));
  return row
    ? {
        domain: row.domain,
        selector: row.dkim_selector,
        privateKey: row.dkim_private_key,
        returnPathVerified: row.return_path,
      }
    : null;
}

import { createRequire } from 'node:module';
import spellChecker from '@zootools/email-spell-checker';

/**
 * The checks of `POST /v1/verify` that need no network: list lookups (disposable, alias, free
 * provider), plus-addressing, typo suggestion, and the verdict built from the DNS answers the
 * service gathered. Every list comes from an installed package (or, for alias services, from the
 * short list below) and is loaded once, when this module is first imported.
 */

const require = createRequire(import.meta.url);

/** Exact disposable domains; a subdomain of one of them is disposable too. */
const DISPOSABLE = new Set<string>(require('disposable-email-domains/index.json') as string[]);
/** Domains whose every subdomain is disposable (`*.33mail.com`); the apex itself only if also in DISPOSABLE. */
const DISPOSABLE_WILDCARD = new Set<string>(require('disposable-email-domains/wildcard.json') as string[]);
/** Free (personal) mailbox providers such as gmail.com; about 8,700 domains. */
const FREE_PROVIDERS = new Set<string>(require('email-providers/all.json') as string[]);
/** The ~350 most common providers: real services, never treated as a misspelling of another one. */
const COMMON_PROVIDERS = new Set<string>(require('email-providers/common.json') as string[]);

/**
 * Alias and forwarding services: an address there forwards to someone's real mailbox, hiding it.
 * No maintained package lists them, so this is a short hand-kept list (subdomains match too, as
 * several services hand out `alias@user.service.tld`). Extend it here when a service is missing.
 */
export const ALIAS_DOMAINS: ReadonlySet<string> = new Set([
  // Apple "Hide My Email"
  'privaterelay.appleid.com',
  // DuckDuckGo Email Protection
  'duck.com',
  // SimpleLogin (Proton) and its shared alias domains
  'simplelogin.com',
  'simplelogin.co',
  'simplelogin.fr',
  'simplelogin.io',
  'aleeas.com',
  'slmail.me',
  'silomails.com',
  'slmails.com',
  '8alias.com',
  '8shield.net',
  'dralias.com',
  // Proton Pass aliases
  'passmail.net',
  'passmail.com',
  'passinbox.com',
  'passfwd.com',
  // addy.io (formerly AnonAddy)
  'anonaddy.com',
  'anonaddy.me',
  'addy.io',
  // Firefox Relay
  'relay.firefox.com',
  'mozmail.com',
  // 33Mail
  '33mail.com',
  // Erine.email
  'erine.email',
  // Burner Mail
  'burnermail.io',
]);

/** Second-level labels under which ccTLDs register names (`example.co.uk`, `example.com.au`). */
const SECOND_LEVEL = new Set([
  'ac',
  'co',
  'com',
  'edu',
  'go',
  'gob',
  'gov',
  'ltd',
  'mil',
  'ne',
  'net',
  'nhs',
  'nom',
  'or',
  'org',
  'plc',
  'sch',
]);

export function splitAddress(email: string): { local: string; domain: string } {
  const at = email.lastIndexOf('@');
  return { local: email.slice(0, at), domain: email.slice(at + 1) };
}

/** The domain and each parent that still has two labels: `a.b.c.com` → a.b.c.com, b.c.com, c.com. */
function withParents(domain: string): string[] {
  const labels = domain.split('.');
  const out: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join('.'));
  return out;
}

/**
 * The name a registrant owns, by a simple rule instead of the full public suffix list: the last
 * two labels, or the last three when the TLD has two letters and the label before it is a common
 * second level (`mail.example.co.uk` → `example.co.uk`, `a.b.example.com` → `example.com`).
 */
export function registrableDomain(domain: string): string {
  const labels = domain.split('.');
  if (labels.length <= 2) return domain;
  const tld = labels[labels.length - 1]!;
  const second = labels[labels.length - 2]!;
  const keep = tld.length === 2 && SECOND_LEVEL.has(second) ? 3 : 2;
  return labels.slice(-keep).join('.');
}

export function isDisposableDomain(domain: string): boolean {
  return withParents(domain).some((name, i) => DISPOSABLE.has(name) || (i > 0 && DISPOSABLE_WILDCARD.has(name)));
}

export function isAliasDomain(domain: string): boolean {
  return withParents(domain).some((name) => ALIAS_DOMAINS.has(name));
}

export function isFreeProviderDomain(domain: string): boolean {
  return FREE_PROVIDERS.has(domain);
}

export function isPlusAddressed(local: string): boolean {
  return local.includes('+');
}

/**
 * A likely correction of a misspelt provider domain (`ann@gmial.com` → `ann@gmail.com`), from
 * @zootools/email-spell-checker. Domains that are real services in their own right (a common
 * provider, an alias service, a wildcard disposable service such as 33mail.com, one edit from
 * mail.com) are never reported as typos.
 */
export function suggestEmail(email: string): string | undefined {
  const { domain } = splitAddress(email);
  if (
    COMMON_PROVIDERS.has(domain) ||
    isAliasDomain(domain) ||
    withParents(domain).some((name) => DISPOSABLE_WILDCARD.has(name))
  ) {
    return undefined;
  }
  const suggestion = spellChecker.run({ email });
  if (!suggestion || suggestion.domain === domain) return undefined;
  return suggestion.full.toLowerCase();
}

/** One DNS answer as the service got it (the shape of `platform/dns` `Lookup`). */
export type DnsAnswer<T> = { ok: true; records: T[] } | { ok: false; error: string };

export interface DnsFindings {
  /** NS of the address's domain. */
  ns: DnsAnswer<string>;
  /** NS of its registrable domain, when that is a different name. */
  parentNs?: DnsAnswer<string>;
  mx: DnsAnswer<{ exchange: string; priority: number }>;
  /** A and AAAA together. */
  addresses: DnsAnswer<string>;
}

export interface VerifyResult {
  email: string;
  valid: boolean;
  isDisposable: boolean;
  isAlias: boolean;
  isTypo: boolean;
  isPlusAddressed: boolean;
  isPersonalEmail: boolean;
  domainExists: boolean;
  hasWebsite: boolean;
  hasMxRecords: boolean;
  suggestedEmail?: string;
  reasons: string[];
}

/** RFC 7505 "null MX" (`MX 0 .`): the domain states that it accepts no mail. */
const isNullMx = (mx: { exchange: string }) => mx.exchange === '' || mx.exchange === '.';

/**
 * The verdict for a syntactically valid, normalised address and the DNS answers about its domain.
 *
 * - `valid` = MX records exist (RFC 5321's implicit MX through an A record is not counted, and a
 *   null MX is no MX) and the domain is not disposable. A typo, an alias or a plus sign alone do
 *   not make an address invalid.
 * - `domainExists` = NS records for the domain, or else for its registrable domain.
 * - `isPersonalEmail` = on the free-provider list or an alias service, and not disposable.
 * - A lookup that failed (timeout, refused) counts as a failed check and is named in `reasons`.
 */
export function evaluateAddress(email: string, dns: DnsFindings): VerifyResult {
  const { local, domain } = splitAddress(email);
  const reasons: string[] = [];
  const failed = (what: string, answer: DnsAnswer<unknown>) => {
    if (!answer.ok) reasons.push(`DNS lookup of ${what} failed (${answer.error})`);
  };

  const isDisposable = isDisposableDomain(domain);
  const isAlias = isAliasDomain(domain);
  const suggestedEmail = suggestEmail(email);
  // Alias services are consumer services too: the list has privaterelay.appleid.com but not duck.com.
  const isPersonalEmail = (isFreeProviderDomain(domain) || isAlias) && !isDisposable;

  const mxRecords = dns.mx.ok ? dns.mx.records : [];
  const hasMxRecords = mxRecords.some((mx) => !isNullMx(mx));
  const nsFound = (answer?: DnsAnswer<string>) => !!answer && answer.ok && answer.records.length > 0;
  const domainExists = nsFound(dns.ns) || nsFound(dns.parentNs);
  const hasWebsite = dns.addresses.ok && dns.addresses.records.length > 0;

  if (isDisposable) reasons.push('Disposable email domain');
  if (isAlias) reasons.push('Alias or forwarding email service');
  if (suggestedEmail) reasons.push(`Possible typo: did you mean ${suggestedEmail}?`);

  if (!domainExists) {
    failed('NS records', dns.ns);
    if (dns.parentNs) failed(`NS records of ${registrableDomain(domain)}`, dns.parentNs);
    if (dns.ns.ok && (!dns.parentNs || dns.parentNs.ok)) reasons.push('Domain does not exist (no NS records)');
  }

  failed('MX records', dns.mx);
  if (dns.mx.ok && !hasMxRecords) {
    reasons.push(mxRecords.length ? 'Domain accepts no email (null MX record)' : 'Domain has no MX records');
  }

  failed('A/AAAA records', dns.addresses);
  if (dns.addresses.ok && !hasWebsite) reasons.push('Domain has no website (no A or AAAA records)');

  return {
    email,
    valid: hasMxRecords && !isDisposable,
    isDisposable,
    isAlias,
    isTypo: suggestedEmail !== undefined,
    isPlusAddressed: isPlusAddressed(local),
    isPersonalEmail,
    domainExists,
    hasWebsite,
    hasMxRecords,
    ...(suggestedEmail ? { suggestedEmail } : {}),
    reasons,
  };
}

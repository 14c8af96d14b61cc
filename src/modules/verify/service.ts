import { evaluateAddress, registrableDomain, splitAddress, type VerifyResult } from '../../domain/address-checks.js';
import type { AppContext } from '../../platform/context.js';
import type { Lookup } from '../../platform/dns.js';

/**
 * Ceiling on the DNS part of one verification. The resolver's own timeout and retries can add up
 * to about 6 s against a server that never answers; past this a lookup counts as timed out.
 */
export const DNS_DEADLINE_MS = 4000;

function withDeadline<T>(lookup: Promise<Lookup<T>>, ms: number): Promise<Lookup<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Lookup<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, error: 'ETIMEOUT' }), ms);
  });
  return Promise.race([lookup, late]).finally(() => clearTimeout(timer));
}

/**
 * Verifies one normalised address: the list checks are pure (domain/address-checks); the DNS
 * lookups (NS of the domain and of its registrable domain, MX, A/AAAA) run in parallel through
 * `ctx.dns`, each bounded by DNS_DEADLINE_MS. A failed lookup never fails the request: it is a
 * failed check, named in `reasons`.
 */
export async function verifyEmail(ctx: AppContext, email: string, cache?: DomainLookupCache): Promise<VerifyResult> {
  const { domain } = splitAddress(email);
  const found = cache
    ? cache.get(domain, ctx.clock.now().getTime(), () => lookupDomain(ctx, domain))
    : lookupDomain(ctx, domain);
  return evaluateAddress(email, await found);
}

type DomainLookups = Parameters<typeof evaluateAddress>[1];
const hasRecords = (l: Lookup<unknown>) => l.ok && l.records.length > 0;

async function lookupDomain(ctx: AppContext, domain: string): Promise<DomainLookups> {
  const parent = registrableDomain(domain);
  const bounded = <T>(lookup: Promise<Lookup<T>>) => withDeadline(lookup, DNS_DEADLINE_MS);
  const [ns, parentNs, mx, addresses] = await Promise.all([
    bounded(ctx.dns.ns(domain)),
    parent === domain ? Promise.resolve(undefined) : bounded(ctx.dns.ns(parent)),
    bounded(ctx.dns.mx(domain)),
    bounded(ctx.dns.addresses(domain)),
  ]);
  return { ns, parentNs, mx, addresses };
}

/**
 * The DNS lookups of a domain remembered for a while, for callers that verify many addresses of
 * few domains (signup forms: most visitors share a handful of providers). Concurrent verifications
 * of one domain share one set of lookups; a set with a failed lookup (a timeout, say) is not kept.
 */
export class DomainLookupCache {
  private readonly entries = new Map<string, { until: number; found: Promise<DomainLookups> }>();

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly max = 10_000,
  ) {}

  get(domain: string, now: number, lookup: () => Promise<DomainLookups>): Promise<DomainLookups> {
    const key = domain.toLowerCase();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.found;
    if (hit) this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    const found = lookup();
    const entry = { until: now + this.ttlMs, found };
    this.entries.set(key, entry);
    void found.then(
      (l) => {
        const failed = [l.ns, l.parentNs, l.mx, l.addresses].some((x) => x && !x.ok);
        if (failed && this.entries.get(key) === entry) this.entries.delete(key);
        // A domain without mail is refused; it may be fixed soon, so that answer is kept briefly.
        else if (!hasRecords(l.mx) && !hasRecords(l.addresses)) entry.until = Math.min(entry.until, now + 30_000);
      },
      () => this.entries.get(key) === entry && this.entries.delete(key),
    );
    return found;
  }
}

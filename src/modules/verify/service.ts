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
export async function verifyEmail(ctx: AppContext, email: string): Promise<VerifyResult> {
  const { domain } = splitAddress(email);
  const parent = registrableDomain(domain);
  const bounded = <T>(lookup: Promise<Lookup<T>>) => withDeadline(lookup, DNS_DEADLINE_MS);
  const [ns, parentNs, mx, addresses] = await Promise.all([
    bounded(ctx.dns.ns(domain)),
    parent === domain ? Promise.resolve(undefined) : bounded(ctx.dns.ns(parent)),
    bounded(ctx.dns.mx(domain)),
    bounded(ctx.dns.addresses(domain)),
  ]);
  return evaluateAddress(email, { ns, parentNs, mx, addresses });
}

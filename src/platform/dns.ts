import { Resolver } from 'node:dns/promises';

/** One lookup's outcome: the records found, or none (no such name or no records of the type). */
export type Lookup<T> = { ok: true; records: T[] } | { ok: false; error: string };

const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

/**
 * DNS lookups through the servers of `DNS_SERVERS` (the system's when empty). A name with no
 * records is an empty answer, not an error; a timeout or refused query is an error, so a check
 * can tell "not published" from "could not ask".
 */
export class Dns {
  private readonly resolver: Resolver;

  constructor(servers: string[], options: { timeoutMs?: number; tries?: number } = {}) {
    this.resolver = new Resolver({ timeout: options.timeoutMs ?? 2000, tries: options.tries ?? 2 });
    if (servers.length) this.resolver.setServers(servers);
  }

  txt(name: string): Promise<Lookup<string>> {
    return this.lookup(() => this.resolver.resolveTxt(name).then((rows) => rows.map((parts) => parts.join(''))));
  }
  mx(name: string): Promise<Lookup<{ exchange: string; priority: number }>> {
    return this.lookup(() => this.resolver.resolveMx(name));
  }
  ns(name: string): Promise<Lookup<string>> {
    return this.lookup(() => this.resolver.resolveNs(name));
  }
  /** The host names of an IP address (PTR records). */
  reverse(ip: string): Promise<Lookup<string>> {
    return this.lookup(() => this.resolver.reverse(ip));
  }
  /** A and AAAA records together. */
  addresses(name: string): Promise<Lookup<string>> {
    return this.lookup(async () => {
      const [v4, v6] = await Promise.all([
        this.resolver.resolve4(name).catch(absentAsEmpty),
        this.resolver.resolve6(name).catch(absentAsEmpty),
      ]);
      return [...v4, ...v6];
    });
  }

  private async lookup<T>(query: () => Promise<T[]>): Promise<Lookup<T>> {
    try {
      return { ok: true, records: await query() };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (ABSENT.has(code)) return { ok: true, records: [] };
      return { ok: false, error: code || String(err) };
    }
  }
}

function absentAsEmpty(err: NodeJS.ErrnoException): string[] {
  if (ABSENT.has(err.code ?? '')) return [];
  throw err;
}

/**
 * DMARC policy records (RFC 7489 §6.3): reading the `_dmarc.<domain>` TXT record a domain publishes,
 * and the record Postbox recommends. Pure: the lookup happens in the domains service.
 */

export const DMARC_POLICIES = ['none', 'quarantine', 'reject'] as const;
export type DmarcPolicy = (typeof DMARC_POLICIES)[number];

/** The parts of a published DMARC record that decide what receivers do and where reports go. */
export interface DmarcRecord {
  policy: DmarcPolicy;
  /** `sp=`: the policy for subdomains, when given. */
  subdomainPolicy: DmarcPolicy | null;
  /** `pct=`: the share of failing mail the policy applies to (100 when absent). */
  percent: number;
  /** The `mailto:` addresses of `rua=`, lower-cased, size limits (`!10m`) removed. */
  reportAddresses: string[];
}

/** The tags of a `tag=value; …` record, names lower-cased, in order; null unless it starts with `v=DMARC1`. */
export function dmarcTags(txt: string): [string, string][] | null {
  const tags: [string, string][] = [];
  for (const part of txt.replace(/^"|"$/g, '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    tags.push([part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim()]);
  }
  const first = tags[0];
  return first && first[0] === 'v' && first[1] === 'DMARC1' ? tags : null;
}

const isPolicy = (value: string | undefined): value is DmarcPolicy =>
  (DMARC_POLICIES as readonly string[]).includes(value ?? '');

/**
 * A published record read as receivers read it; null when the text is not a DMARC record. A record
 * whose `p=` is missing or unknown is read with `p=none`, as receivers do when it names a `rua`
 * (RFC 7489 §6.6.3), so that what is shown is what is in force.
 */
export function readDmarcRecord(txt: string): DmarcRecord | null {
  const tags = dmarcTags(txt);
  if (!tags) return null;
  const tag = (name: string) => tags.find(([n]) => n === name)?.[1];
  const p = tag('p')?.toLowerCase();
  const sp = tag('sp')?.toLowerCase();
  const pct = Number(tag('pct') ?? '100');
  return {
    policy: isPolicy(p) ? p : 'none',
    subdomainPolicy: isPolicy(sp) ? sp : null,
    percent: Number.isInteger(pct) && pct >= 0 && pct <= 100 ? pct : 100,
    reportAddresses: reportAddresses(tag('rua') ?? ''),
  };
}

function reportAddresses(rua: string): string[] {
  return rua
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => /^mailto:/i.test(uri))
    .map((uri) =>
      decodeURIComponent(uri.slice('mailto:'.length).replace(/!\d+[kmgt]?$/i, ''))
        .trim()
        .toLowerCase(),
    );
}

/** The record Postbox recommends: monitoring only (`p=none`), reports to `reportAddress` when there is one. */
export function recommendedDmarc(reportAddress: string | null): string {
  return reportAddress ? `v=DMARC1; p=none; rua=mailto:${reportAddress}` : 'v=DMARC1; p=none';
}

/**
 * A published record with `reportAddress` added to its `rua` (as one more address, or as a new tag),
 * everything else as it was: the value to publish in its place to keep its policy and get reports too.
 */
export function withReportAddress(txt: string, reportAddress: string): string {
  const parts = txt
    .replace(/^"|"$/g, '')
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const uri = `mailto:${reportAddress}`;
  const rua = parts.findIndex((p) => /^rua\s*=/i.test(p));
  if (rua >= 0) parts[rua] = `${parts[rua]},${uri}`;
  else parts.push(`rua=${uri}`);
  return parts.join('; ');
}

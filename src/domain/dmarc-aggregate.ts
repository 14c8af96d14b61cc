/**
 * Reading a DMARC aggregate report (RFC 7489 Appendix C): who reported, for which domain and days,
 * and per source IP how many messages, what the receiver did with them and whether DKIM and SPF
 * passed aligned. Only what the service shows is kept; every text is cut to a sane length.
 *
 * The XML is untrusted: a document type declaration (the only way to define entities) is refused
 * before parsing, the parser expands no entity (the five predefined ones and character references
 * are decoded here, which cannot grow a text), and the number of records is bounded.
 */
import { isIP } from 'node:net';
import { XMLParser } from 'fast-xml-parser';
import { ReportRefused } from './dmarc-archive.js';
import { DMARC_POLICIES, type DmarcPolicy } from './dmarc-record.js';

/** Source rows in one report: a large sender's daily report from Google has a few thousand. */
export const MAX_REPORT_RECORDS = 10_000;
/** Authentication results kept per row. */
const MAX_RESULTS = 10;
const MAX_TEXT = 255;

export interface AuthResult {
  domain: string;
  result: string;
  selector?: string;
}

export interface AggregateRecord {
  sourceIp: string;
  count: number;
  disposition: DmarcPolicy;
  /** The receiver's policy evaluation: DKIM (or SPF) passed and aligned with the From domain. */
  dkimAligned: boolean;
  spfAligned: boolean;
  headerFrom: string | null;
  dkim: AuthResult[];
  spf: AuthResult[];
}

export interface AggregateReport {
  orgName: string;
  reporterEmail: string | null;
  reportId: string;
  /** The period covered, as epoch milliseconds. */
  begins: number;
  ends: number;
  /** `policy_published`: the domain the report is about and its policy then. */
  domain: string;
  policy: DmarcPolicy;
  records: AggregateRecord[];
}

const ARRAYS = new Set(['feedback.record', 'feedback.record.auth_results.dkim', 'feedback.record.auth_results.spf']);

const parser = new XMLParser({
  processEntities: false,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (_name, jpath) => ARRAYS.has(String(jpath)),
});

type Node = Record<string, unknown>;
const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The text of an element: predefined entities and character references decoded, cut to 255 characters. */
function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const decoded = value.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return PREDEFINED[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
  return decoded.trim().slice(0, MAX_TEXT);
}

const node = (value: unknown): Node =>
  (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Node;
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function required(value: unknown, what: string): string {
  const t = text(value);
  if (!t) throw new ReportRefused(`the report has no ${what}`);
  return t;
}

function seconds(value: unknown, what: string): number {
  const t = text(value);
  if (!t || !/^\d{1,12}$/.test(t)) throw new ReportRefused(`the report's ${what} is not a time in seconds`);
  return Number(t) * 1000;
}

const policy = (value: unknown): DmarcPolicy => {
  const t = text(value)?.toLowerCase();
  return (DMARC_POLICIES as readonly string[]).includes(t ?? '') ? (t as DmarcPolicy) : 'none';
};

function authResults(values: unknown[]): AuthResult[] {
  return values.slice(0, MAX_RESULTS).map((v) => {
    const r = node(v);
    const selector = text(r.selector);
    return {
      domain: (text(r.domain) ?? '').toLowerCase(),
      result: (text(r.result) ?? '').toLowerCase(),
      ...(selector ? { selector } : {}),
    };
  });
}

function record(value: unknown, index: number): AggregateRecord {
  const rec = node(value);
  const row = node(rec.row);
  const evaluated = node(row.policy_evaluated);
  const sourceIp = text(row.source_ip) ?? '';
  if (!isIP(sourceIp)) throw new ReportRefused(`record ${index + 1} has no valid source IP`);
  const count = Number(text(row.count));
  if (!Number.isInteger(count) || count < 0 || count > 2 ** 31 - 1)
    throw new ReportRefused(`record ${index + 1} has no valid count`);
  const auth = node(rec.auth_results);
  return {
    sourceIp,
    count,
    disposition: policy(evaluated.disposition),
    dkimAligned: text(evaluated.dkim)?.toLowerCase() === 'pass',
    spfAligned: text(evaluated.spf)?.toLowerCase() === 'pass',
    headerFrom: text(node(rec.identifiers).header_from)?.toLowerCase() ?? null,
    dkim: authResults(list(auth.dkim)),
    spf: authResults(list(auth.spf)),
  };
}

/** Counts `<record>` start tags without parsing, so that a report over the bound costs no tree. */
function recordTags(xml: string): number {
  let n = 0;
  for (let i = xml.indexOf('<record'); i >= 0; i = xml.indexOf('<record', i + 7)) {
    const next = xml.charCodeAt(i + 7);
    if (next === 62 /* > */ || next === 32 || next === 9 || next === 10 || next === 13) n++;
  }
  return n;
}

/** The report in `xml`; ReportRefused when it is not an aggregate report or breaks a bound. */
export function readAggregateReport(xml: string): AggregateReport {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new ReportRefused('the report declares a document type (refused)');
  if (recordTags(xml) > MAX_REPORT_RECORDS)
    throw new ReportRefused(`the report has more than ${MAX_REPORT_RECORDS} records`);
  let doc: Node;
  try {
    doc = node(parser.parse(xml, true));
  } catch (err) {
    throw new ReportRefused(`the report is not well-formed XML: ${(err as Error).message}`);
  }
  const feedback = node(doc.feedback);
  if (Object.keys(feedback).length === 0) throw new ReportRefused('the XML is not a DMARC aggregate report');
  const meta = node(feedback.report_metadata);
  const range = node(meta.date_range);
  const published = node(feedback.policy_published);
  const records = list(feedback.record);
  return {
    orgName: required(meta.org_name, 'org_name'),
    reporterEmail: text(meta.email)?.toLowerCase() || null,
    reportId: required(meta.report_id, 'report_id'),
    begins: seconds(range.begin, 'date_range begin'),
    ends: seconds(range.end, 'date_range end'),
    domain: required(published.domain, 'policy_published domain').toLowerCase().replace(/\.$/, ''),
    policy: policy(published.p),
    records: records.map(record),
  };
}

/**
 * What SpamAssassin's `spamd` answers, read without I/O (the client is platform/spamd.ts): the
 * address of a spamd, and the score, threshold and rules of its answer to `REPORT`.
 */

export interface SpamdTarget {
  host: string;
  port: number;
}

export interface SpamRule {
  name: string;
  score: number;
  description: string;
}

export interface SpamReport {
  score: number;
  /** The score from which spamd itself calls a message spam (its `required_score`, 5 by default). */
  threshold: number;
  rules: SpamRule[];
}

/** spamd's port when the URL names none (its `--port` default). */
export const SPAMD_DEFAULT_PORT = 783;

/** A spam check that could not be made: spamd out of reach, too slow, or answering something else. */
export class SpamdError extends Error {}

/** `spamd://host[:port]` as a target; throws on anything else. */
export function spamdTarget(url: string): SpamdTarget {
  const parsed = new URL(url);
  if (parsed.protocol !== 'spamd:' || !parsed.hostname) throw new Error('expected spamd://host[:port]');
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: parsed.port ? Number(parsed.port) : SPAMD_DEFAULT_PORT };
}

/**
 * The report in spamd's answer to `REPORT`:
 *
 *     SPAMD/1.1 0 EX_OK
 *     Content-length: 1121
 *     Spam: False ; 4.9 / 5.0
 *
 *     …the report template's text…
 *      pts rule name              description
 *     ---- ---------------------- --------------------------------------------------
 *      1.7 HTML_IMAGE_ONLY_04     BODY: HTML: images with 0-400 bytes of words
 *     -0.0 NO_RELAYS              Informational: message was not relayed via SMTP
 *
 * A description too long for its line goes on in the next lines, indented past the columns.
 * Rules come sorted by points, the highest first.
 */
export function parseReportAnswer(answer: string): SpamReport {
  const [head = '', body = ''] = splitOnce(answer.replace(/\r\n/g, '\n'), '\n\n');
  const [statusLine = '', ...headers] = head.split('\n');
  const status = /^SPAMD\/\d+\.\d+ (\d+) (.*)$/.exec(statusLine);
  if (!status) throw new SpamdError(`spamd answered something else than its protocol: ${clip(statusLine)}`);
  if (status[1] !== '0') throw new SpamdError(`spamd refused the check: ${clip(status[2]!)} (code ${status[1]})`);
  const verdict = headers
    .map((h) => /^Spam:\s*(?:True|False|Yes|No)\s*;\s*(-?\d+(?:\.\d+)?)\s*\/\s*(-?\d+(?:\.\d+)?)\s*$/i.exec(h))
    .find((m) => m !== null);
  if (!verdict) throw new SpamdError('spamd answered without a score');
  const rules = parseRuleTable(body).sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  return { score: Number(verdict[1]), threshold: Number(verdict[2]), rules };
}

/** The rows below the table's `---- ----` rule; lines before it (the message's preview among them) are not read. */
export function parseRuleTable(report: string): SpamRule[] {
  const lines = report.split('\n');
  const start = lines.findIndex((line) => /^-{3,} -{3,}/.test(line));
  if (start < 0) return [];
  const rules: SpamRule[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') continue;
    // A row starts in the points column; a continuation is indented past it.
    const row = /^ {0,4}(-?\d+(?:\.\d+)?) +([A-Za-z0-9_]+)(?: +(.*))?$/.exec(line);
    if (row) {
      rules.push({ score: Number(row[1]), name: row[2]!, description: (row[3] ?? '').trim() });
      continue;
    }
    const last = rules.at(-1);
    if (last && /^ {5,}\S/.test(line)) last.description = `${last.description} ${line.trim()}`.trim();
    else break;
  }
  return rules;
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + separator.length)];
}

const clip = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

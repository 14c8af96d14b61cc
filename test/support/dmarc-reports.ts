import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import nodemailer from 'nodemailer';

/** DMARC aggregate reports (RFC 7489 Appendix C) as receivers write them, and mailed as they mail them. */

export interface ReportRow {
  ip: string;
  count: number;
  disposition?: 'none' | 'quarantine' | 'reject';
  dkim: 'pass' | 'fail';
  spf: 'pass' | 'fail';
}

const DAY_MS = 86_400_000;
export const today = () => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
export const daysAgo = (n: number) => new Date(today().getTime() - n * DAY_MS);
export const day = (d: Date) => d.toISOString().slice(0, 10);

/** A report of one day from `begin`, about `domain`, with one record per row. */
export function reportXml(o: {
  org: string;
  id: string;
  begin: Date;
  rows: ReportRow[];
  domain: string;
  email?: string;
}): string {
  const begin = Math.floor(o.begin.getTime() / 1000);
  const records = o.rows
    .map(
      (r) => `
  <record>
    <row>
      <source_ip>${r.ip}</source_ip>
      <count>${r.count}</count>
      <policy_evaluated><disposition>${r.disposition ?? 'none'}</disposition><dkim>${r.dkim}</dkim><spf>${r.spf}</spf></policy_evaluated>
    </row>
    <identifiers><header_from>${o.domain}</header_from></identifiers>
    <auth_results>
      <dkim><domain>${o.domain}</domain><selector>pbx1</selector><result>${r.dkim}</result></dkim>
      <spf><domain>bounces.${o.domain}</domain><result>${r.spf}</result></spf>
    </auth_results>
  </record>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" ?>
<feedback>
  <report_metadata>
    <org_name>${o.org}</org_name>
    <email>${o.email ?? 'noreply-dmarc-support@google.test'}</email>
    <report_id>${o.id}</report_id>
    <date_range><begin>${begin}</begin><end>${begin + 86_399}</end></date_range>
  </report_metadata>
  <policy_published>
    <domain>${o.domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><pct>100</pct>
  </policy_published>${records}
</feedback>`;
}

export interface Attachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export const gz = (name: string, xml: string | Buffer): Attachment => ({
  filename: `${name}.xml.gz`,
  content: gzipSync(xml),
  contentType: 'application/gzip',
});
export const zip = (name: string, xml: string): Attachment => ({
  filename: `${name}.zip`,
  content: Buffer.from(zipSync({ [`${name}.xml`]: new TextEncoder().encode(xml) })),
  contentType: 'application/zip',
});
export const plain = (name: string, xml: string): Attachment => ({
  filename: `${name}.xml`,
  content: Buffer.from(xml),
  contentType: 'text/xml',
});

/** Mails a report to an inbound listener as a receiver does; resolves with the SMTP answer, accepted or not. */
export async function mailReport(
  port: number,
  to: string,
  file: Attachment,
): Promise<{ code: number; response: string }> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({
      from: 'noreply-dmarc-support@google.test',
      to,
      subject: `Report domain: ${to.replace(/^dmarc@bounces\./, '')} Submitter: google.test Report-ID: ${file.filename}`,
      text: 'This is an aggregate report from google.test.',
      attachments: [file],
    });
    return { code: Number(info.response.slice(0, 3)), response: info.response };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string };
    if (e.responseCode === undefined) throw err;
    return { code: e.responseCode, response: e.response ?? '' };
  } finally {
    transport.close();
  }
}

import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { readReturnPath } from '../../domain/feedback/return-path.js';
import type { AppContext } from '../../platform/context.js';
import { ContentLimitError, PoolBusyError } from '../../platform/untrusted/pool.js';
import { receiveDmarcReport } from '../dmarc/service.js';
import { DMARC_LOCAL_PART, isRegisteredDomain } from '../domains/service.js';
import { receiveMail } from '../inbound/service.js';
import { applyReport, reportedEmailId } from './service.js';

/** Reports are small; a bounce quoting a whole large message is cut off by its sender anyway. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface InboundSmtp {
  port: number;
  close(): Promise<void>;
}

type SmtpError = Error & { responseCode: number };
const smtpError = (code: number, message: string): SmtpError =>
  Object.assign(new Error(message), { responseCode: code });

/**
 * The inbound SMTP listener (`INBOUND_SMTP_PORT`): takes delivery status notifications and abuse
 * reports for the registered sender domains and their `bounces.` subdomains, DMARC aggregate reports
 * at `dmarc@bounces.<domain>`, and other mail (replies) for the verified ones. A message is answered
 * 250 only once what it reports is committed; a failure on this side is a 451, so the sender keeps
 * it and tries again.
 *
 * The message itself is read in the worker pool, under a deadline: one that cannot be read within
 * its bounds (too slow to parse or sanitize, too much memory, a header over 1 MB, malformed MIME)
 * is refused for good with a 5xx that says why, since sending it again would fail the same way. A
 * full pool queue is a 451: the sender tries again later.
 */
export async function startInboundSmtp(ctx: AppContext, port: number, host: string): Promise<InboundSmtp> {
  const server = new SMTPServer({
    name: new URL(ctx.config.publicUrl || 'http://localhost').hostname,
    banner: 'Postbox feedback',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onRcptTo(address, _session, callback) {
      const domain = address.address.slice(address.address.lastIndexOf('@') + 1);
      isRegisteredDomain(ctx.db, domain).then(
        (ok) => callback(ok ? undefined : smtpError(550, '5.1.2 No such domain here')),
        (err) => {
          ctx.log.error({ err }, 'inbound SMTP: looking up a domain failed');
          callback(smtpError(451, '4.3.0 Try again later'));
        },
      );
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(smtpError(552, '5.3.4 Message too big'));
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        receive(ctx, recipients, Buffer.concat(chunks)).then(
          () => callback(),
          (err: unknown) => {
            if (err instanceof Error && 'responseCode' in err) return callback(err);
            if (err instanceof ContentLimitError) {
              ctx.log.warn({ recipients, reason: err.reason, message: err.message }, 'inbound SMTP: message refused');
              return callback(refusal(err));
            }
            if (err instanceof PoolBusyError)
              return callback(smtpError(451, '4.3.2 Too many messages being processed; try again later'));
            ctx.log.error({ err }, 'inbound SMTP: recording a report failed');
            callback(smtpError(451, '4.3.0 Try again later'));
          },
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => ctx.log.warn({ err }, 'inbound SMTP connection error'));
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The permanent answer to a message that cannot be read within the bounds. */
function refusal(err: ContentLimitError): SmtpError {
  // One line of reasonable length: the reason may come from the parser.
  const why = err.message.replace(/\s+/g, ' ').slice(0, 200);
  // mailparser's bounds: 1 MB of header per MIME part, 1,000 parts.
  if (err.code === 'EMAXLEN') return smtpError(552, `5.3.4 Message refused: ${why}`);
  if (err.reason === 'invalid') return smtpError(554, `5.6.0 Message refused: it could not be parsed: ${why}`);
  return smtpError(554, `5.6.0 Message refused: reading it ${why}`);
}

/** The sender domain whose DMARC report address (`dmarc@bounces.<domain>`) this is, or null. */
function dmarcReportDomain(recipient: string): string | null {
  const at = recipient.lastIndexOf('@');
  const domain = recipient.slice(at + 1).toLowerCase();
  if (recipient.slice(0, at).toLowerCase() !== DMARC_LOCAL_PART || !domain.startsWith('bounces.')) return null;
  return domain.slice('bounces.'.length);
}

async function receive(ctx: AppContext, recipients: string[], raw: Buffer): Promise<void> {
  // Aggregate reports: whatever else the message is addressed to, it is read as a report only.
  const reportDomains = [...new Set(recipients.map(dmarcReportDomain).filter((d) => d !== null))];
  if (reportDomains.length > 0) {
    for (const domain of reportDomains) await receiveDmarcReport(ctx, domain, raw);
    return;
  }
  const toReturnPath = recipients.some((r) => readReturnPath(ctx.links, r) !== null);
  const report = await ctx.untrusted.report(raw);
  if (!report) {
    // An auto-reply or a bounce in no standard form sent to a return path: nothing to act on.
    if (toReturnPath)
      return void ctx.log.info({ recipients }, 'inbound SMTP: a message to a return path that is no report');
    if ((await receiveMail(ctx, recipients, raw)) === 0)
      throw smtpError(550, '5.7.1 No verified domain here takes this mail');
    return;
  }
  if (report.kind === 'notice')
    return void ctx.log.info({ recipients }, 'inbound SMTP: a report that asks for nothing');
  const emailId = await reportedEmailId(ctx, recipients, report);
  if (!emailId)
    return void ctx.log.info(
      { recipients, kind: report.kind },
      'inbound SMTP: a report about no email of this service',
    );
  const outcome = await applyReport(ctx, emailId, report);
  ctx.log.info(outcome, 'inbound SMTP: report received');
}

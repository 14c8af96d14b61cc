import fs from 'node:fs';
import {
  SMTPServer,
  type SMTPServerAddress,
  type SMTPServerAuthentication,
  type SMTPServerAuthenticationResponse,
  type SMTPServerDataStream,
  type SMTPServerOptions,
  type SMTPServerSession,
} from 'smtp-server';
import type { SubmissionConfig } from '../../config.js';
import { normalizeEmail } from '../../domain/email.js';
import { LoginThrottle } from '../../domain/login-throttle.js';
import type { AppContext } from '../../platform/context.js';
import type { ProjectRateLimit } from '../../platform/http/project-rate-limit.js';
import { MAX_MESSAGE_BYTES, MAX_RECIPIENTS } from '../emails/schemas.js';
import { acceptedText, refusalOf, type SmtpReply, smtpReply } from './replies.js';
import { submitMessage } from './service.js';

/**
 * Bytes of messages held by this process at once, from the first byte received to the reply: past
 * it, further messages are answered 451 and sent again by their clients a little later. Each message
 * is up to 40 MB, and reading one costs about three times its size at its peak.
 */
const MAX_BUFFERED_BYTES = 160 * 1024 * 1024;
/** Connections per listener. */
const MAX_CLIENTS = 200;
/** How long a stop waits for messages being received or stored before it closes their connections. */
const DRAIN_MS = 10_000;
/** Longer keys are no keys of ours: refused without a lookup. */
const MAX_KEY_CHARS = 200;

export interface SubmissionListener {
  /** The STARTTLS (or plain) port, and the implicit-TLS port, as listening. */
  port?: number;
  smtpsPort?: number;
  /** Stops accepting, lets messages in progress finish (up to 10 s), then closes every connection. */
  close(): Promise<void>;
}

/** Who a session authenticated as: the key is looked up again for each message, so a revoked key stops at once. */
interface Login {
  key: string;
  projectId: string;
}

type Callback = (err?: Error | null) => void;

/**
 * SMTP submission (RFC 6409) for applications that send mail over SMTP: AUTH PLAIN or LOGIN with any
 * user name and a project's secret key as the password, then messages that go through the pipeline
 * of `/v1/send` (modules/submission/service.ts). A message is answered 250 only once its emails are
 * committed, with their ids in the reply. Refusals follow the API's rules: sender domain (550),
 * content and sizes (550, 552), the project's rate limit shared with the API (451 4.7.1), a fault on
 * this side (451, the client keeps the message). Failed logins are slowed and locked out per client
 * address (domain/login-throttle.ts).
 */
export async function startSubmission(
  ctx: AppContext,
  settings: SubmissionConfig,
  rateLimit: ProjectRateLimit,
): Promise<SubmissionListener> {
  const tls = settings.tls && readTls(settings.tls);
  const throttle = new LoginThrottle();
  const logins = new Map<string, Login>();
  const now = () => ctx.clock.now().getTime();
  let bufferedBytes = 0;
  let inProgress = 0;
  let drained: (() => void) | undefined;

  const onAuth = (
    auth: SMTPServerAuthentication,
    session: SMTPServerSession,
    callback: (err: Error | null | undefined, response?: SMTPServerAuthenticationResponse) => void,
  ) => {
    const client = session.remoteAddress;
    const lockedMs = throttle.lockedFor(client, now());
    if (lockedMs > 0) {
      const minutes = Math.ceil(lockedMs / 60_000);
      return callback(smtpReply(454, `4.7.0 Too many failed logins from ${client}; try again in ${minutes} min`));
    }
    // The user name is not checked: the password alone names the project (docs/decisions.md).
    const key = auth.password ?? '';
    const refuse = () => {
      const delay = setTimeout(
        () => callback(smtpReply(535, "5.7.8 Authentication failed: the password must be a project's secret key")),
        throttle.failed(client, now()),
      );
      delay.unref();
    };
    if (!key || key.length > MAX_KEY_CHARS) return refuse();
    ctx.keys.resolve(key).then(
      (project) => {
        if (project?.keyKind !== 'secret') return refuse();
        throttle.succeeded(client);
        logins.set(session.id, { key, projectId: project.id });
        callback(null, { user: project.id });
      },
      (err: unknown) => {
        ctx.log.warn({ err }, 'SMTP submission: looking up a key failed');
        callback(smtpReply(454, '4.7.0 Authentication is unavailable; try again shortly'));
      },
    );
  };

  // The project may have been disabled, or the key replaced, since the login; each message counts
  // against the project's rate limit as an API request does.
  const onMailFrom = (address: SMTPServerAddress, session: SMTPServerSession, callback: Callback) => {
    const login = logins.get(session.id);
    if (!login) return callback(smtpReply(530, '5.7.0 Authentication required'));
    const declared = Number(address.args && (address.args as Record<string, string>).SIZE) || 0;
    if (declared > 0 && bufferedBytes + declared > MAX_BUFFERED_BYTES)
      return callback(smtpReply(452, '4.3.1 Too much mail being received at once; try again shortly'));
    admit(login).then(callback, (err: unknown) => {
      ctx.log.warn({ err }, 'SMTP submission: checking the sender failed');
      callback(refusalOf(err) ?? smtpReply(451, '4.3.0 Try again shortly'));
    });
  };

  const admit = async (login: Login): Promise<SmtpReply | undefined> => {
    const project = await ctx.keys.resolve(login.key);
    if (project?.keyKind !== 'secret' || project.id !== login.projectId)
      return smtpReply(530, '5.7.0 The key is no longer valid: authenticate again');
    if (project.disabled) return smtpReply(550, '5.7.1 This project is disabled and cannot send');
    const rate = await rateLimit(project.id);
    if (!rate.allowed)
      return smtpReply(
        451,
        `4.7.1 Rate limit of ${rate.limit} requests per minute exceeded; try again in ${rate.retryAfterSeconds} s`,
      );
    return undefined;
  };

  const onRcptTo = (address: SMTPServerAddress, session: SMTPServerSession, callback: Callback) => {
    // RFC 5321 4.5.3.1.10: the client sends the others in another transaction.
    if (session.envelope.rcptTo.length >= MAX_RECIPIENTS)
      return callback(
        smtpReply(452, `4.5.3 Too many recipients: at most ${MAX_RECIPIENTS} per message; send the others apart`),
      );
    if (!normalizeEmail(address.address)) return callback(smtpReply(553, '5.1.3 Not a valid recipient address'));
    callback();
  };

  const onData = (
    stream: SMTPServerDataStream,
    session: SMTPServerSession,
    callback: (err?: Error | null, message?: string) => void,
  ) => {
    const login = logins.get(session.id);
    const chunks: Buffer[] = [];
    let bytes = 0;
    let overBudget = false;
    let tooBig = false;
    let settled = false;
    inProgress++;
    const settle = () => {
      if (settled) return false;
      settled = true;
      bufferedBytes -= bytes;
      bytes = 0;
      if (--inProgress === 0) drained?.();
      return true;
    };
    const reply = (err: Error | null, text?: string) => settle() && callback(err, text);
    const drop = () => {
      bufferedBytes -= bytes;
      bytes = 0;
      chunks.length = 0;
    };
    stream.on('data', (chunk: Buffer) => {
      if (overBudget || tooBig) return;
      // The rest is read and dropped, however much the client sends; the answer (552, 451) follows its end.
      if (stream.sizeExceeded) {
        tooBig = true;
        return drop();
      }
      if (bufferedBytes + chunk.length > MAX_BUFFERED_BYTES) {
        overBudget = true;
        return drop();
      }
      chunks.push(chunk);
      bytes += chunk.length;
      bufferedBytes += chunk.length;
    });
    // The client went away in the middle of the message: nothing to answer.
    stream.on('error', () => settle());
    stream.on('end', () => {
      if (tooBig || stream.sizeExceeded)
        return reply(smtpReply(552, `5.3.4 Message too big: at most ${MAX_MESSAGE_BYTES} bytes`));
      if (overBudget) return reply(smtpReply(451, '4.3.1 Too much mail being received at once; try again shortly'));
      if (!login) return reply(smtpReply(530, '5.7.0 Authentication required'));
      const envelope = {
        mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null,
        rcptTo: session.envelope.rcptTo.map((r) => r.address),
      };
      submitMessage(ctx, login.projectId, envelope, Buffer.concat(chunks, bytes)).then(
        (ids) => {
          ctx.log.debug({ projectId: login.projectId, emails: ids }, 'SMTP submission: message accepted');
          reply(null, acceptedText(ids));
        },
        (err: unknown) => {
          const refusal = refusalOf(err);
          if (refusal) ctx.log.info({ projectId: login.projectId, reply: refusal.message }, 'SMTP submission: refused');
          else ctx.log.error({ err }, 'SMTP submission: storing a message failed');
          reply(refusal ?? smtpReply(451, '4.3.0 The message could not be stored; try again shortly'));
        },
      );
    });
  };

  const options: SMTPServerOptions = {
    name: new URL(ctx.config.publicUrl || 'http://localhost').hostname,
    banner: 'Postbox submission',
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: settings.allowInsecureAuth,
    // Without a certificate there is no STARTTLS to offer (never smtp-server's built-in test certificate).
    disabledCommands: tls ? [] : ['STARTTLS'],
    ...(tls ?? {}),
    size: MAX_MESSAGE_BYTES,
    maxClients: MAX_CLIENTS,
    logger: false,
    onAuth,
    onMailFrom,
    onRcptTo,
    onData,
    onClose: (session) => void logins.delete(session.id),
  };
  const servers: SMTPServer[] = [];
  const listen = async (port: number, secure: boolean) => {
    const server = new SMTPServer({ ...options, secure });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, settings.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => ctx.log.debug({ err }, 'SMTP submission connection error'));
    servers.push(server);
    const address = server.server.address();
    return typeof address === 'object' && address ? address.port : port;
  };
  const listener: SubmissionListener = {
    async close() {
      const closed = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
      // From here on, new commands are answered 421; messages being received or stored finish first.
      if (inProgress > 0)
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, DRAIN_MS).unref();
        });
      for (const server of servers)
        for (const connection of server.connections) {
          connection.send(421, 'Server shutting down');
          connection.close();
        }
      await Promise.all(closed);
    },
  };
  try {
    if (settings.port !== undefined) listener.port = await listen(settings.port, false);
    if (settings.smtpsPort !== undefined) listener.smtpsPort = await listen(settings.smtpsPort, true);
  } catch (err) {
    await listener.close();
    throw err;
  }
  return listener;
}

/** The certificate and key, read once at start (a renewed certificate takes a restart). */
function readTls(files: { certFile: string; keyFile: string }): { cert: Buffer; key: Buffer } {
  const read = (file: string, variable: string) => {
    try {
      return fs.readFileSync(file);
    } catch (err) {
      throw new Error(`${variable}: cannot read ${file}: ${(err as Error).message}`);
    }
  };
  return { cert: read(files.certFile, 'SUBMISSION_TLS_CERT'), key: read(files.keyFile, 'SUBMISSION_TLS_KEY') };
}

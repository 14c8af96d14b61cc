import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

export interface ReceivedMessage {
  from: string;
  to: string[];
  raw: Buffer;
}

/** How the sink answers a message: accept it, or refuse it with an SMTP code and text. */
export type Verdict = { accept: true } | { accept: false; code: number; message: string };

export interface SmtpSink {
  port: number;
  /** The value for `SMTP_URL`. */
  url: string;
  messages: ReceivedMessage[];
  /** Decides the answer to each following message (default: accept); a promise holds the answer back. */
  respond(judge: (message: ReceivedMessage) => Verdict | Promise<Verdict>): void;
  /** Resolves once `count` messages have been accepted in total. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMessage[]>;
  /** Closes the listener (connection refused) until `start` is called again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A real SMTP server on loopback that keeps what it accepts, for tests and benchmarks. */
export async function startSmtpSink(options: { port?: number; keep?: boolean } = {}): Promise<SmtpSink> {
  const messages: ReceivedMessage[] = [];
  let judge: (m: ReceivedMessage) => Verdict | Promise<Verdict> = () => ({ accept: true });
  let server: SMTPServer | undefined;
  let port = options.port ?? 0;

  const onData = (stream: SMTPServerDataStream, session: SMTPServerSession, done: (err?: Error | null) => void) => {
    const parts: Buffer[] = [];
    stream.on('data', (c: Buffer) => parts.push(c));
    stream.on('end', () => {
      const message: ReceivedMessage = {
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(parts),
      };
      const answer = (verdict: Verdict) => {
        if (verdict.accept) {
          if (options.keep !== false) messages.push(message);
          else messages.length++;
          return done();
        }
        const err = new Error(verdict.message) as Error & { responseCode: number };
        err.responseCode = verdict.code;
        done(err);
      };
      const verdict = judge(message);
      if (verdict instanceof Promise) void verdict.then(answer);
      else answer(verdict);
    });
  };

  const sink: SmtpSink = {
    get port() {
      return port;
    },
    get url() {
      return `smtp://127.0.0.1:${port}`;
    },
    messages,
    respond(fn) {
      judge = fn;
    },
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`SMTP sink received ${messages.length} of ${count} messages`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return messages;
    },
    async start() {
      server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['AUTH', 'STARTTLS'],
        size: 60 * 1024 * 1024,
        logger: false,
        // Stopping the sink drops pooled client connections at once, as a crashed relay would.
        closeTimeout: 100,
        onData,
      });
      server.on('error', () => {});
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, '127.0.0.1', () => resolve());
      });
      port = (server.server.address() as { port: number }).port;
    },
    async stop() {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  await sink.start();
  return sink;
}

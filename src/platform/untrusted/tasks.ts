/**
 * What the untrusted-content worker threads do (see pool.ts): templates, text parts, keys; inbound
 * mail is in mail-tasks.ts, loaded by a thread only when it first reads a message. Each task takes
 * plain data and gives plain data back: expected failures (a syntax error, a message that cannot
 * be read) are results, not exceptions, so that nothing depends on how an error crosses threads. A
 * task that runs away is not stopped here: the pool terminates the whole thread at its deadline.
 */
import { generateKeyPairSync } from 'node:crypto';
import { parseCheck, renderPart, TemplateError, type TemplatePart } from '../../domain/render.js';
import { textFromHtml } from '../mail/message.js';

export type Failure = { ok: false; message: string; code?: string };

// ---- Liquid ----

export interface TemplateTask {
  part: TemplatePart;
  source: string;
  scope?: Record<string, unknown>;
}

export type TemplateResult = { ok: true; output: string } | Failure;

/** Parses (once per thread: render.ts caches) and, given a scope, renders one part with the engine's own limits. */
export function template(task: TemplateTask): TemplateResult {
  try {
    if (task.scope) return { ok: true, output: renderPart(task.source, task.part, task.scope) };
    parseCheck(task.source, task.part);
    return { ok: true, output: '' };
  } catch (err) {
    if (err instanceof TemplateError) return { ok: false, message: err.message };
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

// ---- Keys ----

/** A 2048-bit RSA key pair for DKIM: the public key as DER (SPKI), the private one as PEM (PKCS #8). */
export function rsaKey(): { publicKey: Uint8Array; privateKey: string } {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

// ---- Outgoing mail ----

/** The plain-text alternative of an email's HTML. */
export function text(html: string): { ok: true; text: string } | Failure {
  try {
    return { ok: true, text: textFromHtml(html) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, message: /call stack/i.test(message) ? 'its elements are nested too deeply' : message };
  }
}

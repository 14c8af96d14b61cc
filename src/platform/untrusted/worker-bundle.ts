/**
 * Entry of an untrusted-content worker thread in the production build (`npm run build` bundles it to
 * dist/untrusted-worker.js); from source, worker.mjs offers the same tasks through tsx, whose
 * in-thread require hook cannot follow the dynamic import below. Inbound-mail tasks (mailparser,
 * sanitize-html) are loaded on their first use only: threads that never read a message do not carry them.
 */
import type * as mailTasks from './mail-tasks.js';
import * as tasks from './tasks.js';
import { timed } from './thread-cpu.js';

export const template = timed(tasks.template);
export const text = timed(tasks.text);
export const rsaKey = timed(tasks.rsaKey);

let mailModule: Promise<typeof mailTasks> | undefined;
const loadMailTasks = () => (mailModule ??= import('./mail-tasks.js'));

export const mail = timed(async (raw: Uint8Array) => (await loadMailTasks()).mail(raw));
export const report = timed(async (raw: Uint8Array) => (await loadMailTasks()).report(raw));
export const submission = timed(async (raw: Uint8Array) => (await loadMailTasks()).submission(raw));
export const dmarcReport = timed(async (raw: Uint8Array) => (await loadMailTasks()).dmarcReport(raw));

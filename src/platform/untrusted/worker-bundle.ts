/**
 * Entry of an untrusted-content worker thread in the production build (`npm run build` bundles it to
 * dist/untrusted-worker.js); from source, worker.mjs offers the same tasks through tsx, whose
 * in-thread require hook cannot follow the dynamic import below. Inbound-mail tasks (mailparser,
 * sanitize-html) are loaded on their first use only: threads that never read a message do not carry them.
 */
import type * as mailTasks from './mail-tasks.js';

export { rsaKey, template, text } from './tasks.js';

let mailModule: Promise<typeof mailTasks> | undefined;
const loadMailTasks = () => (mailModule ??= import('./mail-tasks.js'));

export const mail = async (raw: Uint8Array) => (await loadMailTasks()).mail(raw);
export const report = async (raw: Uint8Array) => (await loadMailTasks()).report(raw);
export const submission = async (raw: Uint8Array) => (await loadMailTasks()).submission(raw);

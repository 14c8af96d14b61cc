// Entry of an untrusted-content worker thread (see pool.ts). The service runs its TypeScript through
// tsx, whose loader Node 20 does not pass on to worker threads; tsx's in-thread require hook loads
// the tasks here (its ESM loader would start one more thread per worker, tens of megabytes each).
// Inbound-mail tasks (mailparser, sanitize-html) are loaded on their first use only. The production
// build's threads run worker-bundle.ts instead, which offers the same tasks.
import { require as load } from 'tsx/cjs/api';

const tasks = load('./tasks.ts', import.meta.url);
let mailTasks;
const mailModule = () => (mailTasks ??= load('./mail-tasks.ts', import.meta.url));

export const template = tasks.template;
export const text = tasks.text;
export const rsaKey = tasks.rsaKey;
export const mail = (raw) => mailModule().mail(raw);
export const report = (raw) => mailModule().report(raw);
export const submission = (raw) => mailModule().submission(raw);
export const dmarcReport = (raw) => mailModule().dmarcReport(raw);

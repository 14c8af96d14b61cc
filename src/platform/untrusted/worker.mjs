// Entry of an untrusted-content worker thread (see pool.ts). The service runs its TypeScript through
// tsx, whose loader Node 20 does not pass on to worker threads; tsx's in-thread require hook loads
// the tasks here (its ESM loader would start one more thread per worker, tens of megabytes each).
// Inbound-mail tasks (mailparser, sanitize-html) are loaded on their first use only. The production
// build's threads run worker-bundle.ts instead, which offers the same tasks.
import { require as load } from 'tsx/cjs/api';

const tasks = load('./tasks.ts', import.meta.url);
const { timed } = load('./thread-cpu.ts', import.meta.url);
let mailTasks;
const mailModule = () => (mailTasks ??= load('./mail-tasks.ts', import.meta.url));

export const template = timed(tasks.template);
export const text = timed(tasks.text);
export const rsaKey = timed(tasks.rsaKey);
export const mail = timed((raw) => mailModule().mail(raw));
export const report = timed((raw) => mailModule().report(raw));
export const submission = timed((raw) => mailModule().submission(raw));
export const dmarcReport = timed((raw) => mailModule().dmarcReport(raw));

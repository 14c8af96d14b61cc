/** The erase dialog's rules, apart from React. */

/** Whether what was typed is the contact's address (spaces around it and case aside). */
export function eraseConfirmed(typed: string, email: string): boolean {
  return typed.trim().toLowerCase() === email.trim().toLowerCase() && email.trim() !== '';
}

/** The progress line of an erase: what it has done of what it has to do. */
export function eraseProgressText(job: { status: string; processed: number; total: number }): string {
  if (job.status === 'completed') return `Erased: ${job.total.toLocaleString('en')} rows of history removed.`;
  if (job.status === 'failed') return 'The erase stopped; it is retried on its own.';
  if (job.status === 'queued') return 'Waiting for a worker…';
  return `Removing the history: ${job.processed.toLocaleString('en')} of ${job.total.toLocaleString('en')} rows.`;
}

export function erasePercent(job: { status: string; processed: number; total: number }): number {
  if (job.status === 'completed') return 100;
  return job.total === 0 ? 0 : Math.min(100, Math.round((job.processed / job.total) * 100));
}

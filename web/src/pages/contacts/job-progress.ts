import type { ContactJob } from '../../../../src/api.js';

type JobView = Pick<
  ContactJob,
  'kind' | 'status' | 'total' | 'processed' | 'progress' | 'created' | 'updated' | 'failed' | 'errors'
>;

const numberFormat = new Intl.NumberFormat('en');
const count = (n: number, one: string, many = `${one}s`) => `${numberFormat.format(n)} ${n === 1 ? one : many}`;

/** Whole percent done: 100 only once the job has ended well. */
export function jobPercent(job: Pick<ContactJob, 'status' | 'progress'>): number {
  if (job.status === 'completed') return 100;
  return Math.min(99, Math.max(0, Math.floor(job.progress * 100)));
}

const DONE_VERB: Record<Exclude<ContactJob['kind'], 'import'>, string> = {
  subscribe: 'Subscribed',
  unsubscribe: 'Unsubscribed',
  delete: 'Deleted',
};

/** One line saying where a job is, for the progress bar's label and the screen reader. */
export function jobProgressText(job: JobView): string {
  const unit = job.kind === 'import' ? 'row' : 'contact';
  switch (job.status) {
    case 'queued':
      return 'Waiting to start…';
    case 'running':
      if (job.total === 0) return job.kind === 'import' ? 'Reading the file…' : 'Starting…';
      return `${jobPercent(job)}% · ${numberFormat.format(job.processed)} of ${count(job.total, unit)}`;
    case 'failed':
      return `Stopped: ${job.errors[0]?.message ?? 'the job failed'}`;
    case 'completed': {
      const failed = job.failed > 0 ? `, ${numberFormat.format(job.failed)} failed` : '';
      if (job.kind === 'import')
        return `Done: ${count(job.total, 'row')}, ${numberFormat.format(job.created)} new, ${numberFormat.format(job.updated)} updated${failed}`;
      return `${DONE_VERB[job.kind]} ${count(job.updated, 'contact')}${failed}`;
    }
  }
}

export const isFinished = (job: Pick<ContactJob, 'status'>) => job.status === 'completed' || job.status === 'failed';

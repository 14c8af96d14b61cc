import { sql } from 'drizzle-orm';
import { type Db, run } from './db/client.js';

export type DependencyState = 'ok' | 'down';

/** How long `/health` waits for each dependency: a frozen one must not freeze the probe. */
const PROBE_TIMEOUT_MS = 1_500;

/** `probe` within the bound: 'down' when it fails or does not answer in time. */
export async function probe(check: () => Promise<unknown>): Promise<DependencyState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<DependencyState>(
    (resolve) => (timer = setTimeout(() => resolve('down'), PROBE_TIMEOUT_MS)),
  );
  try {
    return await Promise.race([
      check().then(
        (): DependencyState => 'ok',
        (): DependencyState => 'down',
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export const probeDatabase = (db: Db) => probe(() => run(db, sql`select 1`));

import type { AppContext } from '../../src/platform/context.js';
import { MONTHS_AHEAD, monthStart, type Partition, partitionsOf } from '../../src/platform/db/partitions.js';
import { eventually } from './server.js';

/** The service's context with its clock set to `now`. */
export const at = (ctx: AppContext, now: Date): AppContext => ({ ...ctx, clock: { now: () => now } });

/** `table`'s partitions once the worker has made the month of now and the months ahead of it. */
export async function monthsMadeAhead(ctx: AppContext, table: string): Promise<Partition[]> {
  const now = ctx.clock.now();
  const expected = Array.from({ length: MONTHS_AHEAD + 1 }, (_, i) => monthStart(now, i).toISOString());
  return eventually(async () => {
    const found = await partitionsOf(ctx.db, table);
    const months = found.filter((p) => !p.isDefault).map((p) => p.from!.toISOString());
    return expected.every((m) => months.includes(m)) ? found : undefined;
  });
}

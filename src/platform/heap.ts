import v8 from 'node:v8';

/**
 * Makes V8 grow the old generation by `percent` past what survived each full collection, instead of
 * its own factor of up to four. A worker's live data stays small (messages in flight, caches) while
 * it allocates fast, so V8's own factor lets its heap reach several times what it holds; a step of 60 % keeps
 * it near its live data at no measurable cost, where smaller steps cost CPU (docs/performance.md,
 * "Worker memory without a flag"). Unlike a cap (`--max-old-space-size`), it never stops a process whose live data
 * grows, say with messages carrying the largest attachments. 0 leaves V8's own factor.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

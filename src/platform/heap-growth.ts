import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full collection before it
 * collects again, in percent. V8's own factor goes up to 4× on a machine with gigabytes free: a
 * worker delivering a campaign holds 55–90 MB of live objects, yet its heap reached 234 MB and its
 * RSS 390–420 MB with garbage not yet collected (docs/performance.md, "The production build"). Growing
 * by a quarter keeps the peak near the live data, for more frequent full collections, which V8 marks
 * concurrently on another core.
 */
export const HEAP_GROWING_PERCENT = 25;

const FLAG = '--heap-growing-percent';

/**
 * Sets the bound for this process (V8 reads it at each collection), unless `node` was started with
 * a value of its own (`node --heap-growing-percent=N dist/main.js worker`), which is kept.
 */
export function boundHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg === FLAG || arg.startsWith(`${FLAG}=`))) return;
  v8.setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
}

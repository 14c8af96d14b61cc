// Preloaded into the service by bench/hostile-input.ts (NODE_OPTIONS=--import): measures the event
// loop's delay on the main thread. On SIGUSR2 it writes what it saw since the last signal (ms) to
// BENCH_LOOP_DELAY_FILE and starts over, so the benchmark reads the delay of each phase.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_LOOP_DELAY_FILE;
if (isMainThread && file) {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    fs.writeFileSync(
      file,
      JSON.stringify({
        p50: ms(histogram.percentile(50)),
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
        at: Date.now(),
      }),
    );
    histogram.reset();
  });
}

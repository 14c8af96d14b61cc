import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { cpuUsed, measurable, newTaskClock } from '../../src/platform/untrusted/thread-cpu.js';

// A task's clock counts the CPU time its thread spends on it, read from outside the thread: time
// the thread waits (here, blocked; on a busy machine, for a core) is not counted.

const MODULE = path.resolve(import.meta.dirname, '../../src/platform/untrusted/thread-cpu.ts');

/** A thread that runs one timed task: blocked for 400 ms, then busy until it has worked 300 ms. */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { require: load } = require('tsx/cjs/api');
const { timed, cpuUsed } = load(workerData.module, __filename);
timed(() => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
  parentPort.postMessage('waited');
  while (cpuUsed(workerData.clock) < 300) for (let i = 0; i < 1e5; i++);
  parentPort.postMessage('worked');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
})({ input: null, clock: workerData.clock });
`;

describe.runIf(measurable)('the CPU clock of a task', () => {
  it('counts what its thread worked, not what it waited, and is 0 before the task starts', async () => {
    const clock = newTaskClock();
    expect(cpuUsed(clock)).toBe(0);
    const worker = new Worker(THREAD, { eval: true, workerData: { module: MODULE, clock } });
    const seen: Record<string, number | undefined> = {};
    await new Promise<void>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('message', (phase: string) => {
        seen[phase] = cpuUsed(clock);
        if (phase === 'worked') resolve();
      });
    });
    await worker.terminate();
    expect(seen.waited).toBeLessThan(100);
    expect(seen.worked).toBeGreaterThanOrEqual(300);
    expect(seen.worked).toBeLessThan(1_000);
    // Its thread is gone: nothing to measure.
    expect(cpuUsed(clock)).toBeUndefined();
  });
});

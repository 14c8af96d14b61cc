/**
 * Running a benchmark: its cleanups, a quiet machine to measure on, the figures and the one result
 * line it prints.
 */
import fs from 'node:fs';
import os from 'node:os';

/** Cleanups that also run when the benchmark is interrupted, so no database or directory is left behind. */
export class Cleanup {
  private tasks: (() => Promise<void> | void)[] = [];
  private running?: Promise<void>;

  constructor() {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        void this.run().finally(() => process.exit(130));
      });
    }
  }

  add(task: () => Promise<void> | void): void {
    this.tasks.push(task);
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const task of this.tasks.reverse()) {
        try {
          await task();
        } catch (err) {
          process.stderr.write(`cleanup failed: ${String(err)}\n`);
        }
      }
    })();
    return this.running;
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

function cpuTimes(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    const total = v.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** Measures how busy the whole machine's CPU is from now until `pct()` is called (null off Linux). */
export function machineCpu(): { pct(): number | null } {
  const a = cpuTimes();
  return {
    pct() {
      const b = cpuTimes();
      if (!a || !b || b.total === a.total) return null;
      return round((100 * (b.busy - a.busy)) / (b.total - a.total));
    },
  };
}

/** Share of the machine's CPU in use over `ms`, or null off Linux. */
export async function cpuBusyPct(ms = 1000): Promise<number | null> {
  const a = cpuTimes();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTimes();
  if (!a || !b || b.total === a.total) return null;
  return round((100 * (b.busy - a.busy)) / (b.total - a.total));
}

/*
 * The machine is shared: figures taken while something else keeps the cores busy say little. Waits
 * (a bounded time) for the CPU to settle and reports how busy it was when the run started.
 */
export async function waitForQuiet(maxWaitMs = 60_000, thresholdPct = 20): Promise<number | null> {
  const deadline = Date.now() + maxWaitMs;
  let busy = await cpuBusyPct();
  while (busy !== null && busy > thresholdPct && Date.now() < deadline) busy = await cpuBusyPct(2000);
  return busy;
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable with `Date.now()` of other processes. */
export const wallNow = () => performance.timeOrigin + performance.now();

/** The machine a figure was measured on, for the result line. */
export function machineInfo() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memGiB: round(os.totalmem() / 2 ** 30),
    node: process.version,
  };
}

/** Progress on stderr, stamped with the seconds since the benchmark started. */
export const log = (message: string) => process.stderr.write(`[${round(performance.now() / 1000)} s] ${message}\n`);

/** The benchmark's result: its one line on stdout. */
export function printResult(result: object): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Prints the result line; problems the run's verification found go to stderr and make the exit code 1. */
export function reportVerified(result: object, problems: string[]): number {
  printResult(result);
  if (problems.length) log(`verification failed: ${problems.join('; ')}`);
  return problems.length ? 1 : 0;
}

/**
 * Runs a benchmark's `main` with a Cleanup that runs when it is done, then exits with the code it
 * returns (0 for none), or prints the error and exits 1.
 */
export function runBench(main: (cleanup: Cleanup) => Promise<unknown>): void {
  const cleanup = new Cleanup();
  main(cleanup)
    .finally(() => cleanup.run())
    .then(
      (code) => process.exit(typeof code === 'number' ? code : 0),
      (err) => {
        process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exit(1);
      },
    );
}

/**
 * The CPU time of one worker thread, read from Linux's /proc, so that a task's deadline counts the
 * work it did rather than the time it waited for a core: the threads run at a lower priority, and
 * on a machine whose cores are taken an ordinary template waited seconds for them. Each task gets a
 * small shared clock; its thread stamps it when the task starts (its id and CPU time then), and the
 * pool reads that thread's CPU time from outside while the task runs, even inside a tight loop.
 * Where /proc is not there, nothing is measured and deadlines are wall-clock.
 */
import fs from 'node:fs';

/** What /proc counts CPU time in: USER_HZ, 100 per second on Linux. */
export const CPU_TICK_MS = 10;

export const measurable = fs.existsSync('/proc/thread-self/stat');

/** [thread id, its CPU milliseconds when the task started]; zeros until the task starts. */
export type TaskClock = BigInt64Array;

export const newTaskClock = (): TaskClock => new BigInt64Array(new SharedArrayBuffer(16));

/** What the pool hands a thread: the task's input and its clock. */
export interface TimedInput {
  input: unknown;
  clock: TaskClock;
}

/** A task of a worker thread that stamps its clock before it starts. */
export function timed<I, R>(task: (input: I) => R): (message: TimedInput) => R {
  return ({ input, clock }) => {
    if (measurable) {
      const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
      // The start first: a clock with its thread id is complete.
      Atomics.store(clock, 1, BigInt(cpuMs(`/proc/self/task/${tid}/stat`) ?? 0));
      Atomics.store(clock, 0, BigInt(tid));
    }
    return task(input as I);
  };
}

/**
 * CPU milliseconds the task has used so far: 0 before its thread stamped the clock, undefined when
 * it cannot be measured (no /proc, or the thread is gone).
 */
export function cpuUsed(clock: TaskClock): number | undefined {
  if (!measurable) return undefined;
  const tid = Atomics.load(clock, 0);
  if (tid === 0n) return 0;
  const now = cpuMs(`/proc/self/task/${tid}/stat`);
  return now === undefined ? undefined : now - Number(Atomics.load(clock, 1));
}

/** utime + stime of a /proc stat file, in milliseconds; fields after the command name, which may hold spaces. */
function cpuMs(file: string): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of proc(5), counted from the state (field 3).
  return (Number(fields[11]) + Number(fields[12])) * CPU_TICK_MS;
}

/**
 * Pacing rules, without I/O: the slots of a recipient domain limited to some messages per minute,
 * and the daily cap of a sender domain on a warm-up schedule (docs/decisions.md, "Pacing").
 */

/** The domain of an address, lower-cased: what limits are keyed by. */
export const domainOf = (address: string): string => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

export interface SlotPlan {
  /** One slot per message, in order: send at that time (now or earlier: at once). */
  slots: Date[];
  /** Where the domain's next slot begins once these are taken. */
  next: Date;
}

/**
 * Takes `count` slots `intervalMs` apart for one recipient domain (the generic cell rate
 * algorithm: `cursor` is when the next slot is free). A cursor far ahead of the slots still held
 * (`held`: the latest slot a queued message holds, null when none does) was left by messages that
 * will not be sent (a cancelled or paused campaign); it is brought back to one interval after
 * them, so their slots do not hold the domain up.
 */
export function planSlots(input: {
  cursor: Date | null;
  held: Date | null;
  now: Date;
  count: number;
  intervalMs: number;
}): SlotPlan {
  const { now, intervalMs } = input;
  const bound = Math.max(input.held?.getTime() ?? 0, now.getTime()) + intervalMs;
  const cursor = Math.min(input.cursor?.getTime() ?? 0, bound);
  const start = Math.max(cursor, now.getTime());
  const slots = Array.from({ length: input.count }, (_, i) => new Date(start + i * intervalMs));
  return { slots, next: new Date(start + input.count * intervalMs) };
}

/** The interval between two messages to a domain limited to `perMinute`. */
export const intervalOf = (perMinute: number): number => 60_000 / perMinute;

export interface WarmupSchedule {
  /** Messages allowed on the first day. */
  startVolume: number;
  /** Each day allows this many times the day before (1.5: half as many again). */
  dailyGrowth: number;
  /** The day the allowance reaches this, the warm-up is over and the domain sends without a cap. */
  fullVolume: number;
  /** The first day, `YYYY-MM-DD` in UTC. */
  startedOn: string;
}

const DAY_MS = 86_400_000;

/** The UTC day of `at`, `YYYY-MM-DD`. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** The start of the UTC day after `at`'s. */
export const nextDay = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS + DAY_MS);

export interface WarmupDay {
  /** 1 on the schedule's first day (and before it). */
  day: number;
  /** Messages allowed that day; null once the warm-up is over. */
  cap: number | null;
}

/** Where a schedule stands on `at`'s day. */
export function warmupDay(schedule: WarmupSchedule, at: Date): WarmupDay {
  const elapsed = Math.floor((Date.parse(dayOf(at)) - Date.parse(schedule.startedOn)) / DAY_MS);
  const day = Math.max(0, elapsed) + 1;
  const cap = Math.floor(schedule.startVolume * schedule.dailyGrowth ** (day - 1));
  return { day, cap: cap >= schedule.fullVolume ? null : cap };
}

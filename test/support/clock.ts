/**
 * A service clock a test moves (`startTestServer(env, { clock })`): it runs on at the machine's pace
 * from wherever it was last set, never changing the machine's own clock.
 */
export interface MovableClock {
  now(): Date;
  /** Moves the clock to `iso`; it runs on from there. */
  set(iso: string): void;
  /** Moves the clock `ms` ahead. */
  advance(ms: number): void;
}

/** A clock at `startIso`, or at the machine's time without one. */
export function movableClock(startIso?: string): MovableClock {
  let offset = startIso === undefined ? 0 : Date.parse(startIso) - Date.now();
  return {
    now: () => new Date(Date.now() + offset),
    set(iso: string) {
      offset = Date.parse(iso) - Date.now();
    },
    advance(ms: number) {
      offset += ms;
    },
  };
}

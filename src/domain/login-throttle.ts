/**
 * Failed logins per client address: each failure beyond the first few is answered later than the one
 * before, and an address with too many failures in the window is locked out until the window ends.
 * Secret keys are long random strings, so guessing one is hopeless anyway; this keeps a misconfigured
 * client or a scanner from costing a key lookup per attempt, and makes a stolen list of guesses slow.
 * Time is given by the caller; memory is bounded (the oldest addresses are forgotten first).
 */
export interface LoginThrottleOptions {
  /** Failures answered at once. */
  freeFailures: number;
  /** The delay after the first failure beyond the free ones; doubled for each further one. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Failures within the window after which the address is locked out for the rest of it. */
  lockAfter: number;
  windowMs: number;
  /** Addresses remembered at most. */
  maxAddresses: number;
}

export const LOGIN_THROTTLE_DEFAULTS: LoginThrottleOptions = {
  freeFailures: 2,
  baseDelayMs: 1_000,
  maxDelayMs: 8_000,
  lockAfter: 10,
  windowMs: 15 * 60_000,
  maxAddresses: 10_000,
};

interface Failures {
  count: number;
  /** When the window of this address started: its first failure. */
  since: number;
}

export class LoginThrottle {
  private readonly failures = new Map<string, Failures>();
  private readonly options: LoginThrottleOptions;

  constructor(options: Partial<LoginThrottleOptions> = {}) {
    this.options = { ...LOGIN_THROTTLE_DEFAULTS, ...options };
  }

  /** Milliseconds until `address` may try again; 0 when it may now. */
  lockedFor(address: string, now: number): number {
    const f = this.current(address, now);
    if (!f || f.count < this.options.lockAfter) return 0;
    return f.since + this.options.windowMs - now;
  }

  /** Records a failure of `address`; returns how long to wait before answering it. */
  failed(address: string, now: number): number {
    let f = this.current(address, now);
    if (!f) {
      f = { count: 0, since: now };
      if (this.failures.size >= this.options.maxAddresses) this.failures.delete(this.failures.keys().next().value!);
    }
    f.count++;
    // Re-inserted: the Map's order is then the order of last failure, oldest first.
    this.failures.delete(address);
    this.failures.set(address, f);
    const beyond = f.count - this.options.freeFailures;
    if (beyond <= 0) return 0;
    return Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (beyond - 1));
  }

  /** A successful login forgets the address's failures. */
  succeeded(address: string): void {
    this.failures.delete(address);
  }

  private current(address: string, now: number): Failures | undefined {
    const f = this.failures.get(address);
    if (f && f.since + this.options.windowMs <= now) {
      this.failures.delete(address);
      return undefined;
    }
    return f;
  }
}

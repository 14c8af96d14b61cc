/**
 * Delivery lanes: mail without a campaign (`/v1/send`, workflow steps, campaign tests) and campaign
 * mail. Transactional mail is claimed first and takes the next free place at the relay, and may be
 * given a share of the window and of the relay's places that campaign mail cannot take, so a
 * password reset never waits behind a campaign (docs/decisions.md, "Lanes").
 */
export type Lane = 'transactional' | 'campaign';

export const laneOf = (email: { campaign_id: string | null }): Lane =>
  email.campaign_id === null ? 'transactional' : 'campaign';

/**
 * How many of `slots` campaign mail may use: all but `reservedShare` of them (rounded up), and at
 * least one, so that a campaign always moves, even with a single connection.
 */
export function campaignSlots(slots: number, reservedShare: number): number {
  // The epsilon keeps 0.1 × 30 (3.0000000000000004 in floating point) from reserving 4.
  return Math.max(1, slots - Math.ceil(slots * reservedShare - 1e-9));
}

/**
 * Admits messages to the relay `slots` at a time, transactional ones first and campaign ones only
 * up to `campaignLimit` at once. Without it, the SMTP pool's own queue (first come, first served)
 * would put a password reset behind every campaign message handed to it before.
 */
export class RelayGate {
  private readonly busy: Record<Lane, number> = { transactional: 0, campaign: 0 };
  private readonly waiting: Record<Lane, (() => void)[]> = { transactional: [], campaign: [] };

  constructor(
    private readonly slots: number,
    private readonly campaignLimit: number,
  ) {}

  /** Runs `work` once the lane has a slot at the relay; the slot is freed when it settles. */
  async run<T>(lane: Lane, work: () => Promise<T>): Promise<T> {
    await this.acquire(lane);
    try {
      return await work();
    } finally {
      this.busy[lane]--;
      this.dispatch();
    }
  }

  private acquire(lane: Lane): Promise<void> {
    return new Promise((admitted) => {
      this.waiting[lane].push(admitted);
      this.dispatch();
    });
  }

  /** Hands free slots to waiting messages: transactional ones first, campaign ones within their limit. */
  private dispatch(): void {
    while (this.busy.transactional + this.busy.campaign < this.slots) {
      const lane: Lane | undefined =
        this.waiting.transactional.length > 0
          ? 'transactional'
          : this.waiting.campaign.length > 0 && this.busy.campaign < this.campaignLimit
            ? 'campaign'
            : undefined;
      if (!lane) return;
      this.busy[lane]++;
      this.waiting[lane].shift()!();
    }
  }
}

/**
 * A count of places, at most `max` taken at once; those who ask while all are taken wait their turn.
 * Bounds the messages the relay may have received whose outcome is not yet committed: what a kill
 * can make go out twice (docs/decisions.md, "Duplicates per kill").
 */
export class Places {
  private taken = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  take(): Promise<void> {
    if (this.taken < this.max) {
      this.taken++;
      return Promise.resolve();
    }
    return new Promise((given) => this.waiting.push(given));
  }

  /** Frees a place: the next in line takes it at once. */
  free(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.taken--;
  }
}

import { createPrivateKey } from 'node:crypto';
import { withRelayMetadata } from '../../domain/feedback/relay-metadata.js';
import { returnPath } from '../../domain/feedback/return-path.js';
import { backoffMs } from '../../domain/formats.js';
import { domainOf } from '../../domain/pacing.js';
import type { AppContext } from '../../platform/context.js';
import { type DkimKey, mailOptions } from '../../platform/mail/message.js';
import { classifyFailure, type MailTransport } from '../../platform/mail/transport.js';
import { PollingLoop, withDeadline } from '../../platform/polling.js';
import { ContentLimitError } from '../../platform/untrusted/pool.js';
import { capturingMail, DOMAINS_CHANNEL, signingKeyFor } from '../domains/service.js';
import { pacingFor } from '../pacing/service.js';
import { AttachmentCache } from './attachments.js';
import type { ClaimedEmail, FollowUp, Outcome, OutcomeEffects } from './delivery-repo.js';
import * as repo from './delivery-repo.js';
import { DomainGate } from './domain-gate.js';
import { campaignSlots, type Lane, laneOf, Places, RelayGate } from './lanes.js';
import { admitPaced } from './pacing.js';
import { EMAILS_CHANNEL } from './repo.js';

export interface DeliveryOptions {
  /** Messages in flight at once; the transport's pool queues what its connections cannot take yet. */
  concurrency: number;
  /** How long after claiming an email another worker may take it over, should this one's process be gone. */
  reclaimAfterMs: number;
  /** First retry delay after a temporary failure; doubled each attempt up to an hour. */
  retryBaseMs: number;
  /** Attempts before a message that keeps failing temporarily is given up as failed. */
  maxAttempts: number;
  /** Messages handed to the relay at once; more wait in the engine, by lane. */
  relaySlots: number;
  /** The share of the window and of the relay slots that campaign mail leaves to mail without a campaign. */
  transactionalShare: number;
  /**
   * Messages whose last bytes may have reached the relay while their outcome is not committed yet,
   * at most: a SIGKILL sends at most these again (docs/decisions.md, "Duplicates per kill").
   */
  unconfirmed: number;
}

/** How often rounds look for transactional mail that no NOTIFY announced (retries falling due, a dead worker's). */
const POLL_MS = 250;

/** How long a failed outcome write waits before it is tried again (the database may be restarting). */
const WRITE_RETRY_MS = 500;

/** How many times, and how far apart, a worker looks for claims it may have lost after a claim failed. */
const LOST_CLAIM_CHECKS = 2;
const LOST_CLAIM_CHECK_MS = 5000;

/** How long campaign mail to a domain with all the messages in flight it may have waits in the queue. */
const BUSY_DOMAIN_MS = 1000;

/** How long an outcome write waits for the relay's answers to other messages at their end (see `answersDue`). */
const PAIR_WAIT_MS = 20;

/** A message's place among the `unconfirmed`: taken before its last bytes go to the relay, freed once its outcome is committed. */
interface Place {
  state: 'none' | 'taken' | 'done';
  taking?: Promise<void>;
  /** Taken, and the relay's answer not yet in. */
  awaiting: boolean;
}

/**
 * Delivers queued emails: claims due rows in batches, sends them through the transport with at
 * most `concurrency` in flight, and commits each outcome as soon as the relay answered: outcomes
 * that arrive while a write is under way go together in the next one (group commit), and a
 * message keeps its place in the window until its outcome is committed. Back-pressure is explicit:
 * nothing more is claimed while the window is full.
 *
 * Lanes (see `lanes.ts`): mail without a campaign is claimed before campaign mail and goes to the
 * relay first, so a send never waits behind a campaign. Pacing (see `pacing.ts`, `domain-gate.ts`):
 * campaign mail over a recipient domain's rate or a sender domain's warm-up goes back to the queue
 * until its time, and each recipient domain has at most its limit of messages in flight.
 *
 * Exactly once: a claimed email belongs to this process for as long as it lives (see `ownerGone`).
 * A message is handed to the relay only while the session it was claimed under (and so its claim)
 * is known to hold; otherwise it is given back unsent. A SIGKILL between the relay's 250 and the commit
 * can still send a message twice, with the same Message-ID, so receivers can drop the copy.
 */
export class DeliveryEngine {
  private readonly inFlight: Record<Lane, number> = { transactional: 0, campaign: 0 };
  /** The emails this engine has claimed and not yet settled. */
  private readonly inHand = new Set<string>();
  /** A claim failed: it may have committed all the same, its rows held by this process with nobody to send them. */
  private lostClaimChecks = 0;
  private lostClaimCheckAt = 0;
  /** The part of the window campaign mail may fill: the rest is kept for transactional mail. */
  private readonly campaignWindow: number;
  private readonly relay: RelayGate;
  private readonly domains = new DomainGate();
  private readonly unconfirmed: Places;
  /** Set by a NOTIFY (sends wake the engine at most every 100 ms, see emails/service): look for transactional mail. */
  private transactionalWoken = true;
  private lookedForTransactionalAt = 0;
  // Polled four times a second, and woken by NOTIFY and by every message that finishes.
  private readonly loop = new PollingLoop({
    intervalMs: POLL_MS,
    round: () => this.round(),
    onError: (err) => this.ctx.log.error({ err }, 'claiming emails failed'),
  });
  private pending: { outcome: Outcome; committed: () => void }[] = [];
  /** Messages holding an `unconfirmed` place whose relay answer is not in yet, and who waits for them. */
  private awaitingAnswers = 0;
  private allAnswered?: () => void;
  private flushing?: Promise<void>;
  /** The latest row of each campaign named by outcome statements since the last follow-up began. */
  private readonly campaignsToCheck = new Map<string, FollowUp>();
  private checkingCampaigns?: Promise<void>;
  private unlisten?: () => Promise<void>;
  private readonly attachments: AttachmentCache;

  constructor(
    private readonly ctx: AppContext,
    private readonly transport: MailTransport,
    private readonly options: DeliveryOptions,
    private readonly effects: OutcomeEffects,
  ) {
    this.attachments = new AttachmentCache(ctx.db);
    this.campaignWindow = campaignSlots(options.concurrency, options.transactionalShare);
    this.unconfirmed = new Places(options.unconfirmed);
    this.relay = new RelayGate(options.relaySlots, campaignSlots(options.relaySlots, options.transactionalShare));
  }

  async start(): Promise<void> {
    this.unlisten = await this.ctx.database.listen(EMAILS_CHANNEL, () => {
      // Campaign pages notify too, but a few times per thousand messages: one small extra claim each.
      this.transactionalWoken = true;
      this.loop.wake();
    });
    this.loop.start();
  }

  /** Stops claiming, waits up to `drainMs` for messages in flight, and writes their outcomes. */
  async stop(drainMs = 10_000): Promise<void> {
    await this.loop.stop(drainMs);
    await withDeadline(this.flushing, drainMs);
    await this.unlisten?.();
    this.transport.close();
  }

  /**
   * Claims for both lanes in one statement. Campaign mail waits until half its part of the window is
   * free, so its rows are fetched in batches, not one by one as each message finishes. Transactional
   * mail is claimed into any free room, but only when it may be there (a NOTIFY, or every POLL_MS),
   * so a running campaign does not cost a claim per message. Nothing is claimed without the
   * process's session: without its lock, claims would look abandoned at once.
   */
  private async round(): Promise<boolean> {
    const session = this.ctx.database.session();
    if (session === undefined) return false;
    await this.releaseLostClaims();
    const room = this.options.concurrency - this.inFlight.transactional - this.inFlight.campaign;
    const campaignRoom = Math.min(room, this.campaignWindow - this.inFlight.campaign);
    const campaign = campaignRoom >= Math.ceil(this.campaignWindow / 2) ? campaignRoom : 0;
    const polled = performance.now();
    const lookForTransactional =
      room > 0 && (campaign > 0 || this.transactionalWoken || polled - this.lookedForTransactionalAt >= POLL_MS);
    const transactional = lookForTransactional ? room : 0;
    if (transactional === 0 && campaign === 0) return false;

    const now = this.ctx.clock.now();
    const reclaimableAt = new Date(now.getTime() + this.options.reclaimAfterMs);
    if (transactional > 0) {
      this.transactionalWoken = false;
      this.lookedForTransactionalAt = polled;
    }
    const claimed = await repo
      .claimDueEmails(
        this.ctx.database.indexed,
        now,
        reclaimableAt,
        { transactional, campaign, total: room },
        this.ctx.database.processKey,
      )
      .catch((err: unknown) => {
        // The NOTIFY that asked for this claim is not lost with it: the next round looks again.
        if (transactional > 0) this.transactionalWoken = true;
        this.lostClaimChecks = LOST_CLAIM_CHECKS;
        throw err;
      });
    for (const email of claimed) this.inHand.add(email.id);
    let claimedTransactional = 0;
    for (const email of claimed) if (laneOf(email) === 'transactional') claimedTransactional++;
    for (const email of await this.admitPaced(claimed)) this.loop.track(this.deliver(email, session));
    // A lane that gave all it was asked for may have more due: another round at once, and the
    // transactional lane stays looked for until a claim leaves it empty.
    const transactionalFull = transactional > 0 && claimedTransactional === transactional;
    if (transactionalFull) this.transactionalWoken = true;
    const campaignAsked = Math.min(campaign, room - claimedTransactional);
    return transactionalFull || (campaignAsked > 0 && claimed.length - claimedTransactional === campaignAsked);
  }

  /** The claimed emails to send now: pacing gives the others back until their time. */
  private async admitPaced(claimed: ClaimedEmail[]): Promise<ClaimedEmail[]> {
    try {
      const admitted = await admitPaced(this.ctx, claimed, this.ctx.database.processKey, this.effects);
      const sending = new Set(admitted.send.map((e) => e.id));
      // Those pacing deferred are back in the queue already.
      for (const e of claimed) if (!sending.has(e.id) && !admitted.giveBack.includes(e)) this.inHand.delete(e.id);
      for (const email of admitted.giveBack) this.loop.track(this.giveBack(email));
      return admitted.send;
    } catch (err) {
      // Nothing may go unpaced: the whole claim goes back to the queue for a moment.
      const until = new Date(this.ctx.clock.now().getTime() + BUSY_DOMAIN_MS);
      for (const email of claimed) this.loop.track(this.giveBack(email, until));
      throw err;
    }
  }

  private async giveBack(email: ClaimedEmail, until?: Date): Promise<void> {
    await this.settle({ ...repo.keyOf(email), status: 'released', ...(until ? { until } : {}) });
    this.inHand.delete(email.id);
  }

  /**
   * After a claim failed, gives back the due emails this process holds but has not in hand, twice
   * some seconds apart: a claim whose commit went through without its answer holds rows that
   * nobody else takes while this process lives.
   */
  private async releaseLostClaims(): Promise<void> {
    if (this.lostClaimChecks === 0 || performance.now() < this.lostClaimCheckAt) return;
    const n = await repo.releaseUnheld(
      this.ctx.database.indexed,
      this.ctx.database.processKey,
      [...this.inHand],
      this.ctx.clock.now(),
    );
    this.lostClaimChecks--;
    this.lostClaimCheckAt = performance.now() + LOST_CLAIM_CHECK_MS;
    if (n > 0) this.ctx.log.warn({ emails: n }, 'gave back emails claimed by a claim whose answer was lost');
  }

  private async deliver(email: ClaimedEmail, session: number): Promise<void> {
    const lane = laneOf(email);
    this.inFlight[lane]++;
    // Taken before the message's last bytes go to the relay, freed once its outcome is committed.
    // One place per message, however many times the transport streams it (a retried connection).
    const place: Place = { state: 'none', awaiting: false };
    const beforeEnd = () =>
      (place.taking ??= this.unconfirmed.take().then(() => {
        // A send that failed while it waited (the relay timed out) has nothing left to confirm.
        if (place.state === 'done') this.unconfirmed.free();
        else {
          place.state = 'taken';
          place.awaiting = true;
          this.awaitingAnswers++;
        }
      }));
    try {
      const outcome = await this.attempt(email, lane, session, beforeEnd);
      this.answered(place);
      await this.settle(outcome);
    } finally {
      this.answered(place);
      if (place.state === 'taken') this.unconfirmed.free();
      place.state = 'done';
      this.inHand.delete(email.id);
      this.inFlight[lane]--;
      this.loop.wake();
    }
  }

  /** Sends `email`, claimed under `session`, unless that session is gone by the time the relay would take it. */
  private async attempt(
    email: ClaimedEmail,
    lane: Lane,
    session: number,
    beforeEnd: () => Promise<void>,
  ): Promise<Outcome> {
    const ref = repo.keyOf(email);
    const retry = (error: string): Outcome =>
      email.attempts >= this.options.maxAttempts
        ? { ...ref, status: 'failed', error: `${error} (gave up after ${email.attempts} attempts)` }
        : {
            ...ref,
            status: 'retry',
            error,
            nextAttemptAt: new Date(
              this.ctx.clock.now().getTime() + backoffMs(email.attempts, this.options.retryBaseMs),
            ),
          };
    try {
      const domain = domainOf(email.to_email);
      const limit = (await pacingFor(this.ctx, email.project_id)).concurrency(domain);
      const key = `${email.project_id}:${domain}`;
      if (lane === 'campaign' && this.domains.full(key, limit)) {
        return { ...ref, status: 'released', until: new Date(this.ctx.clock.now().getTime() + BUSY_DOMAIN_MS) };
      }
      const dkim = await this.signingKey(email.project_id, email.from_email);
      // A domain that stops verifying stops sending; its mail waits in case it verifies again.
      // Captured mail needs no verified domain: it is signed when the domain has a key, else not at all.
      if (!dkim && !capturingMail(this.ctx)) return retry(`Sender domain of ${email.from_email} is not verified`);
      // The plain-text part as its sender wrote it, or made in the worker pool: HTML that cannot be
      // converted within its bounds (nested too deeply, too slow) fails the email for good (see the catch below).
      const text = email.text ?? (await this.ctx.untrusted.text(email.html));
      const attachments = email.has_attachments ? await this.attachments.of(email.id) : [];
      const info = await this.domains.run(key, limit, () =>
        this.relay.run(lane, async () => {
          // Fencing, checked once the relay would take the message: unless the session that claimed
          // it still holds the lock, another worker may have taken the email over (even if this
          // process has reconnected since: the lock was free in between).
          if (this.ctx.database.session() !== session) return null;
          return this.transport.send(
            mailOptions(
              {
                messageId: email.message_id,
                from: { email: email.from_email, name: email.from_name },
                ...(this.ctx.config.inboundSmtpPort !== undefined && dkim?.returnPathVerified
                  ? { returnPath: returnPath(this.ctx.links, email.id, email.from_email) }
                  : {}),
                to: { email: email.to_email, name: email.to_name },
                replyTo: email.reply_to,
                subject: email.subject,
                html: email.html,
                text,
                headers: withRelayMetadata(email.headers, email.id, {
                  postmark: this.ctx.config.postmarkWebhookCredentials !== undefined,
                  brevo: this.ctx.config.brevoWebhookCredentials !== undefined,
                }),
                attachments,
              },
              dkim,
            ),
            { beforeEnd },
          );
        }),
      );
      if (!info) return { ...ref, status: 'released' };
      return { ...ref, status: 'sent', response: info.response };
    } catch (err) {
      if (err instanceof ContentLimitError) {
        return {
          ...ref,
          status: 'failed',
          error:
            'Not sent: the plain-text part could not be made from the HTML: ' +
            (err.reason === 'invalid' ? err.message : `the conversion ${err.message}`),
        };
      }
      const message = err instanceof Error ? err.message : String(err);
      // A refusal for good is also a hard bounce to the campaign guardrails (domain/campaign-guardrails.ts).
      return classifyFailure(err) === 'permanent'
        ? { ...ref, status: 'failed', error: message, rejected: true }
        : retry(message);
    }
  }

  /** Signing keys, parsed once: a domain that changes state clears them (NOTIFY on its channel). */
  private signingKey(projectId: string, fromEmail: string): Promise<DkimKey | null> {
    const domain = fromEmail.slice(fromEmail.lastIndexOf('@') + 1);
    return this.ctx.caches
      .of<DkimKey | null>(DOMAINS_CHANNEL, 'signing-keys')
      .get(`${projectId}:${domain}`, async () => {
        const found = await signingKeyFor(this.ctx, projectId, fromEmail);
        return found && { ...found, privateKey: createPrivateKey(found.privateKey) };
      });
  }

  /** A message whose last bytes went to the relay has its answer (or has failed): its outcome is on its way to `pending`. */
  private answered(place: Place): void {
    if (!place.awaiting) return;
    place.awaiting = false;
    this.awaitingAnswers--;
    if (this.awaitingAnswers === 0) this.allAnswered?.();
  }

  /**
   * Waits, at most PAIR_WAIT_MS, for the answers of the messages whose last bytes are at the relay:
   * their outcomes then share the commit of those already answered. Each such message holds one of
   * the `unconfirmed` places until its commit, so committing alone what is answered would only make
   * one commit per message, not a faster one (docs/decisions.md, "An outcome write waits up to 20 ms").
   */
  private answersDue(): Promise<void> {
    if (this.awaitingAnswers === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, PAIR_WAIT_MS);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.allAnswered = done;
    }).finally(() => {
      this.allAnswered = undefined;
    });
  }

  /**
   * Resolves once the outcome is committed; a write that fails is tried again until it succeeds or the engine stops.
   */
  private settle(outcome: Outcome): Promise<void> {
    return new Promise((committed) => {
      this.pending.push({ outcome, committed });
      this.flushing ??= this.writeOutcomes().finally(() => (this.flushing = undefined));
    });
  }

  /**
   * Runs the campaigns' follow-up (guardrails, completion) for outcomes just committed: after the
   * commit, since it must see them, and apart from the writes, so it never holds the next one back
   * (the time between a relay's answer and its record is what a kill can resend). One runs at a time,
   * for every campaign named since the last began, judged from the rows the outcome statements
   * returned: most follow-ups need no statement at all. A check that fails is made again by the
   * recurring campaign rescue.
   */
  private checkCampaigns(campaigns: FollowUp[]): void {
    for (const c of campaigns) this.campaignsToCheck.set(c.id, c);
    this.checkingCampaigns ??= (async () => {
      while (this.campaignsToCheck.size > 0) {
        const batch = [...this.campaignsToCheck.values()];
        this.campaignsToCheck.clear();
        await this.effects
          .afterCommit(this.ctx.db, batch, this.ctx.clock.now())
          .catch((err) =>
            this.ctx.log.warn({ err }, 'checking campaigns for completion failed; the campaign rescue checks again'),
          );
      }
    })().finally(() => (this.checkingCampaigns = undefined));
  }

  private async writeOutcomes(): Promise<void> {
    while (this.pending.length > 0) {
      await this.answersDue();
      const batch = this.pending.splice(0);
      try {
        const outcomes = batch.map((p) => p.outcome);
        const campaigns = await repo.recordOutcomes(
          this.ctx.database.indexed,
          outcomes,
          this.ctx.clock.now(),
          this.ctx.database.processKey,
          this.effects,
          this.ctx.bus.wanted(),
        );
        for (const p of batch) p.committed();
        this.checkCampaigns(campaigns);
      } catch (err) {
        this.pending.unshift(...batch);
        // Left uncommitted, these emails stay claimed and are taken over once this process is gone.
        if (this.loop.stopped) return;
        this.ctx.log.warn({ err }, 'recording delivery outcomes failed; trying again');
        await new Promise((r) => setTimeout(r, WRITE_RETRY_MS));
      }
    }
  }
}

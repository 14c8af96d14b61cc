import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { encodeCursor } from '../../platform/http/pagination.js';
import { currentRequest, requestOrigin } from '../../platform/http/request-scope.js';
import { requestActor } from '../audit/service.js';
import * as repo from './repo.js';
import type { ConsentPage, ConsentQuery } from './schemas.js';

/**
 * Consent history (docs/decisions.md, "Consent history"): every change of a contact's subscription,
 * written in the transaction of the change. Who made it comes from the request being handled (a
 * dashboard user, a key) or is "system" for jobs; a change made on a public form or page is the
 * visitor's, and only then are the IP address and user agent kept, as the proof of who consented.
 */

export const CONSENT_CHANGES = [
  'subscribed',
  'unsubscribed',
  'snoozed',
  'pending',
  'confirmed',
  'complained',
  'bounced',
] as const;
export type ConsentChange = (typeof CONSENT_CHANGES)[number];

/** What the code making a change knows beyond its source: the form, key, job or email, and the text shown. */
export interface ConsentDetail {
  /** The form, import job, bulk job, email or workflow the change came through. */
  sourceId?: string | null;
  /** The consent text the visitor saw, exactly as shown. */
  consentText?: string | null;
  /** The change, where the subscription alone does not say it (a confirmation, a pending signup). */
  change?: ConsentChange;
  /**
   * Who made the change, when it is written apart from the request that asked for it (a batch
   * written for many requests at once); the request being handled otherwise.
   */
  origin?: ConsentOrigin;
}

export type ConsentOrigin = repo.ConsentOrigin;

export interface ConsentEntry extends ConsentDetail {
  projectId: string;
  contactId: string;
  change: ConsentChange;
  /** The topic changed; absent for the subscription as a whole. */
  topicId?: string | null;
  /** The path of the change, as on its event: api, form, import, one_click, complaint… */
  source: string;
  at: Date;
}

/** The change a flip of `subscribed` is, by its source: a complaint and a bounce say why it stopped. */
export function flipChange(subscribed: boolean, source: string, snoozed: boolean): ConsentChange {
  if (subscribed) return 'subscribed';
  if (source === 'complaint') return 'complained';
  if (source === 'bounce') return 'bounced';
  return snoozed ? 'snoozed' : 'unsubscribed';
}

/** Who makes the change the request being handled asks for; the `system` outside a request. */
export function consentOrigin(): ConsentOrigin {
  const request = currentRequest();
  if (!request) return { actor: 'system', userId: null, keyId: null, ip: null, userAgent: null };
  const who = requestActor(request);
  if (who.actor !== 'anonymous')
    return { actor: who.actor, userId: who.userId, keyId: who.keyId, ip: null, userAgent: null };
  return { actor: 'visitor', userId: null, keyId: null, ...requestOrigin() };
}

/** Appends entries in `ex`, the transaction of their change: one statement however many. */
export async function recordConsent(ex: Executor, entries: ConsentEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const current = consentOrigin();
  await repo.insertRecords(
    ex,
    entries.map((e) => ({
      projectId: e.projectId,
      contactId: e.contactId,
      at: e.at,
      change: e.change,
      topicId: e.topicId ?? null,
      source: e.source,
      sourceId: e.sourceId ?? null,
      consentText: e.consentText ?? null,
      ...(e.origin ?? current),
    })),
  );
}

function actorOf(row: repo.ConsentRow): ConsentPage['data'][number]['actor'] {
  const [kind, id] = row.actor.split(/:(.*)/s) as [string, string | undefined];
  if (kind === 'user' || kind === 'key') return { kind, id: id ?? null, label: row.actor_name };
  if (kind === 'secret-key' || kind === 'visitor') return { kind, id: null, label: null };
  return { kind: 'system', id: null, label: null };
}

/** GET /contacts/{id}/consent: the contact's history, newest first; 404 is the caller's to decide. */
export async function listConsent(
  ctx: AppContext,
  projectId: string,
  contactId: string,
  q: ConsentQuery,
): Promise<ConsentPage> {
  const [rows, total] = await Promise.all([
    repo.listRecords(ctx.db, { projectId, contactId, after: q.cursor as [string, string] | undefined, limit: q.limit }),
    q.cursor ? null : repo.countRecords(ctx.db, projectId, contactId),
  ]);
  const hasMore = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: page.map((row) => ({
      id: row.id,
      at: iso(row.at),
      change: row.change as ConsentChange,
      topicId: row.topic_id,
      source: row.source,
      sourceId: row.source_id,
      actor: actorOf(row),
      ip: row.ip,
      userAgent: row.user_agent,
      consentText: row.consent_text,
    })),
    cursor: hasMore && last ? encodeCursor([iso(last.at), last.id]) : null,
    hasMore,
    total: total ?? 0,
  };
}

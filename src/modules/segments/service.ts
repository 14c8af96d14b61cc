import { emptyPatch } from '../../domain/contact-data.js';
import { type FilterCondition, filterReferences } from '../../domain/filters/index.js';
import { iso } from '../../domain/formats.js';
import { estimateFromSample, samplePercent } from '../../domain/sample-estimate.js';
import { slugify, uniqueSlug } from '../../domain/slug.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { AppError, notFound, validationError } from '../../platform/http/errors.js';
import { numberedPage, type PageRequest, pageWindow } from '../../platform/http/pagination.js';
import { enqueue } from '../../platform/queue.js';
import type { UsageRegistry } from '../../platform/usage.js';
import * as audit from '../audit/service.js';
import type { Contact } from '../contacts/schemas.js';
import {
  type ContactRow,
  findContact,
  lookupEmails,
  toContact,
  upsertContacts,
  withTopicsAll,
} from '../contacts/service.js';
import { checkAudience, compileAudience, filterContext, MARKETING_RECIPIENT, registerFilterUsage } from './audience.js';
import type { SegmentRow } from './repo.js';
import * as repo from './repo.js';
import type { Segment, SegmentInput, SegmentPatch } from './schemas.js';

export { findSegment, membershipsOf } from './repo.js';

export const SEGMENT_COUNT_QUEUE = 'segments.count';

export function toSegment(row: SegmentRow): Segment {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    type: row.type,
    condition: row.condition,
    trackMembership: row.track_membership,
    memberCount: row.member_count,
    memberCountUpdatedAt: iso(row.counted_at),
    projectId: row.project_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

async function requireSegment(ex: Executor, projectId: string, id: string, lock = false): Promise<SegmentRow> {
  const row = await repo.findSegment(ex, projectId, id, lock);
  if (!row) throw notFound('Segment');
  return row;
}

/**
 * Creates a segment with a slug made from its name (unique in the project, kept when the segment
 * is renamed, so its event names never change). A dynamic segment's count is computed by a job.
 */
export async function createSegment(ctx: AppContext, projectId: string, input: SegmentInput): Promise<Segment> {
  const now = ctx.clock.now();
  const condition = input.type === 'DYNAMIC' ? input.condition! : null;
  if (condition) checkAudience(condition, await filterContext(ctx.db, projectId, now), 'condition');
  const base = slugify(input.name);
  return ctx.db.transaction(async (tx) => {
    for (;;) {
      const slug = uniqueSlug(base, await repo.slugsLike(tx, projectId, base));
      const row = await repo.insertSegment(
        tx,
        projectId,
        {
          name: input.name,
          slug,
          description: input.description ?? null,
          type: input.type,
          condition,
          trackMembership: input.trackMembership,
        },
        now,
      );
      // A concurrent create took the slug between the read and the insert: pick again.
      if (!row) continue;
      if (row.type === 'DYNAMIC') await enqueue(tx, SEGMENT_COUNT_QUEUE, { segmentId: row.id });
      await audit.record(tx, {
        projectId,
        action: 'segment.created',
        target: { type: 'segment', id: row.id },
        changes: { name: row.name, type: row.type },
      });
      return toSegment(row);
    }
  });
}

export async function listSegments(ctx: AppContext, projectId: string): Promise<Segment[]> {
  return (await repo.listSegments(ctx.db, projectId)).map(toSegment);
}

export async function getSegment(ctx: AppContext, projectId: string, id: string): Promise<Segment> {
  return toSegment(await requireSegment(ctx.db, projectId, id));
}

/**
 * Name, description, condition (dynamic segments only) and tracking. Turning tracking off forgets a
 * dynamic segment's member list; turning it on starts from an empty list, so the next computation
 * emits an entry event for every contact then matching.
 */
export async function updateSegment(
  ctx: AppContext,
  projectId: string,
  id: string,
  patch: SegmentPatch,
): Promise<Segment> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const current = await requireSegment(tx, projectId, id, true);
    if (patch.condition !== undefined && current.type === 'STATIC') {
      throw validationError([
        {
          field: 'condition',
          message: 'A static segment has no condition; manage its members instead',
          code: 'invalid_for_type',
        },
      ]);
    }
    const trackMembership = patch.trackMembership ?? current.track_membership;
    if (current.type === 'DYNAMIC' && (patch.condition !== undefined || trackMembership !== current.track_membership)) {
      const condition = patch.condition ?? current.condition!;
      const filters = await filterContext(tx, projectId, now, { id, type: 'DYNAMIC', trackMembership, condition });
      checkAudience(condition, filters, 'condition');
    }
    const row = await repo.updateSegment(tx, projectId, id, patch, now);
    if (!row) throw notFound('Segment');
    if (current.type === 'DYNAMIC') {
      if (current.track_membership && !trackMembership) await repo.clearMembers(tx, id);
      if (patch.condition !== undefined) await enqueue(tx, SEGMENT_COUNT_QUEUE, { segmentId: id });
    }
    await audit.record(tx, {
      projectId,
      action: 'segment.updated',
      target: { type: 'segment', id },
      changes: audit.fieldsOf(patch),
    });
    return toSegment(row);
  });
}

/**
 * Refused (409) while a scheduled or sending campaign targets the segment, or while another
 * segment's condition names it: deleting it would silently change who those reach.
 */
export async function deleteSegment(ctx: AppContext, projectId: string, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await requireSegment(tx, projectId, id, true);
    const { campaigns } = await ctx.usage.find(tx, 'active-segment', projectId, id);
    if (campaigns.length > 0) {
      throw new AppError(409, 'SEGMENT_IN_USE', 'The segment is the audience of a scheduled or sending campaign', {
        details: { campaigns },
        suggestion: 'Cancel the campaigns listed in details, or wait until they have been sent.',
      });
    }
    const segments = (await repo.listSegments(tx, projectId))
      .filter((s) => s.id !== id && s.condition && filterReferences(s.condition).segments.includes(id))
      .map((s) => ({ id: s.id, name: s.name }));
    if (segments.length > 0) {
      throw new AppError(409, 'SEGMENT_IN_USE', 'Other segments include this segment in their condition', {
        details: { segments },
        suggestion: 'Remove the memberOfSegment filters naming this segment from the segments listed in details.',
      });
    }
    await repo.deleteSegment(tx, projectId, id);
    await audit.record(tx, { projectId, action: 'segment.deleted', target: { type: 'segment', id } });
  });
}

/** The number of contacts in a segment now: its listed members, or the contacts matching its condition. */
async function countNow(ex: Executor, row: SegmentRow, now: Date): Promise<number> {
  if (row.type === 'STATIC') return repo.countMembers(ex, row.id);
  const ctx = await filterContext(ex, row.project_id, now);
  return repo.countMatching(ex, row.project_id, compileAudience(row.condition!, ctx, 'condition'));
}

/** POST /segments/{id}/refresh: recounts and stores `memberCount`; no events, no member writes. */
export async function refreshSegment(ctx: AppContext, projectId: string, id: string): Promise<Segment> {
  const row = await requireSegment(ctx.db, projectId, id);
  const now = ctx.clock.now();
  const updated = await repo.setMemberCount(ctx.db, id, await countNow(ctx.db, row, now), now);
  if (!updated) throw notFound('Segment');
  return toSegment(updated);
}

/** The count job of one segment (after a create or a change of condition). */
export async function countSegment(ctx: AppContext, segmentId: string): Promise<void> {
  const projectId = await repo.segmentProject(ctx.db, segmentId);
  if (projectId) await refreshSegment(ctx, projectId, segmentId);
}

/** The recurring refresh of every segment's count, least recently counted first. */
export async function refreshAllSegmentCounts(ctx: AppContext): Promise<number> {
  const all = await repo.segmentsToCount(ctx.db);
  for (const s of all) {
    try {
      await refreshSegment(ctx, s.project_id, s.id);
    } catch (err) {
      // Deleted meanwhile, or a condition that no longer compiles: the others still get counted.
      ctx.log.warn({ err, segmentId: s.id }, 'counting a segment failed');
    }
  }
  return all.length;
}

/**
 * POST /segments/{id}/compute, for tracked dynamic segments: the member list becomes the contacts
 * matching now, and exactly the contacts that changed get `segment.<slug>.entry` or `.exit`.
 */
export async function computeSegment(ctx: AppContext, projectId: string, id: string) {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await requireSegment(tx, projectId, id, true);
    if (row.type !== 'DYNAMIC' || !row.track_membership) {
      throw new AppError(
        400,
        'SEGMENT_NOT_TRACKED',
        'Only a dynamic segment with trackMembership: true has a membership to compute',
        {
          suggestion: 'Set trackMembership to true, or use /refresh to update the count.',
        },
      );
    }
    const condition = compileAudience(row.condition!, await filterContext(tx, projectId, now), 'condition');
    const result = await repo.computeMembers(
      tx,
      { projectId, segmentId: id, slug: row.slug, emit: true, now },
      condition,
    );
    await audit.record(tx, {
      projectId,
      action: 'segment.computed',
      target: { type: 'segment', id },
      changes: { entered: result.entered, exited: result.exited },
    });
    return { segmentId: id, entered: result.entered, exited: result.exited, memberCount: result.members };
  });
}

/** GET /segments/{id}/contacts: a static segment's member list, a dynamic segment's matches now. */
export async function listSegmentContacts(ctx: AppContext, projectId: string, id: string, q: PageRequest) {
  const row = await requireSegment(ctx.db, projectId, id);
  let rows: ContactRow[];
  let total: number;
  if (row.type === 'STATIC') {
    [rows, total] = await Promise.all([repo.memberContacts(ctx.db, id, pageWindow(q)), repo.countMembers(ctx.db, id)]);
  } else {
    const condition = compileAudience(
      row.condition!,
      await filterContext(ctx.db, projectId, ctx.clock.now()),
      'condition',
    );
    [rows, total] = await Promise.all([
      repo.matchingContacts(ctx.db, projectId, condition, pageWindow(q)),
      repo.countMatching(ctx.db, projectId, condition),
    ]);
  }
  return numberedPage<Contact>(await withTopicsAll(ctx.db, projectId, rows.map(toContact)), total, q);
}

/**
 * GET /contacts/{id}/segments: the segments the contact is in now, in order of name. A dynamic segment counts
 * when its condition matches the contact; a static one when it lists it. A condition that no longer
 * compiles (a segment it names was deleted) matches nothing, as in a campaign's audience.
 */
export async function contactSegments(ctx: AppContext, projectId: string, contactId: string) {
  if (!(await findContact(ctx.db, projectId, contactId))) throw notFound('Contact');
  const segments = await repo.listSegments(ctx.db, projectId);
  const filters = await filterContext(ctx.db, projectId, ctx.clock.now());
  const dynamic = segments.flatMap((row) => {
    if (row.type !== 'DYNAMIC' || !row.condition) return [];
    try {
      return [{ id: row.id, condition: compileAudience(row.condition, filters, 'condition') }];
    } catch {
      return [];
    }
  });
  const { matching, listed } = await repo.segmentsOfContact(ctx.db, projectId, contactId, dynamic);
  // A tracked dynamic segment also lists members, as of its last compute: its condition decides.
  const isMember = (row: SegmentRow) => (row.type === 'STATIC' ? listed : matching).includes(row.id);
  return {
    data: segments
      .filter(isMember)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((row) => ({ id: row.id, name: row.name, slug: row.slug, type: row.type })),
  };
}

/** About this many contacts are read for an estimate: enough for a margin near ±1 % of the project. */
const ESTIMATE_SAMPLE_ROWS = 20_000;
/** A sample with fewer of the project's contacts (a small project in a large table) gives way to a count. */
const ESTIMATE_MIN_SAMPLED = 2_000;

/**
 * POST /segments/estimate, for the segment builder while a condition is edited: the count in about
 * the same time at any size, with how many of those a MARKETING campaign would send to. Reads a
 * random ~20,000 rows' worth of the table's pages and scales up; where that would read most of the
 * table, or finds too few of the project's contacts, it counts.
 */
export async function estimateSegment(ctx: AppContext, projectId: string, input: { condition: FilterCondition }) {
  const condition = await compiledForCount(ctx, projectId, input.condition);
  const tableRows = await repo.contactTableRows(ctx.db);
  const percent = samplePercent(tableRows, ESTIMATE_SAMPLE_ROWS);
  if (percent !== null) {
    const counts = await repo.sampleMatching(ctx.db, projectId, condition, MARKETING_RECIPIENT, percent);
    if (counts.sampled >= ESTIMATE_MIN_SAMPLED) {
      const all = estimateFromSample(counts, tableRows);
      const recipients = estimateFromSample({ ...counts, matched: counts.matchedRecipients }, tableRows);
      return {
        ...all,
        subscribed: recipients.estimate,
        subscribedMargin: recipients.margin,
        exact: false,
        sampled: counts.sampled,
      };
    }
  }
  const [split, contacts] = await Promise.all([
    repo.countMatchingSplit(ctx.db, projectId, condition, MARKETING_RECIPIENT),
    repo.countContacts(ctx.db, projectId),
  ]);
  return {
    estimate: split.total,
    margin: 0,
    subscribed: split.subscribed,
    subscribedMargin: 0,
    exact: true,
    contacts,
    sampled: contacts,
  };
}

/**
 * POST /segments/count: the exact number of contacts matching a tree, and of those a MARKETING
 * campaign to the same tree would send to, with the first `preview` matching contacts (newest first).
 */
export async function countCondition(
  ctx: AppContext,
  projectId: string,
  input: { condition: FilterCondition; preview: number },
) {
  const condition = await compiledForCount(ctx, projectId, input.condition);
  const [split, rows] = await Promise.all([
    repo.countMatchingSplit(ctx.db, projectId, condition, MARKETING_RECIPIENT),
    input.preview > 0
      ? repo.matchingContacts(ctx.db, projectId, condition, { offset: 0, limit: input.preview })
      : Promise.resolve([]),
  ]);
  return { ...split, contacts: await withTopicsAll(ctx.db, projectId, rows.map(toContact)) };
}

/** A tree the builder has not saved, checked as a save would check it and compiled for now. */
async function compiledForCount(ctx: AppContext, projectId: string, tree: FilterCondition) {
  const filters = await filterContext(ctx.db, projectId, ctx.clock.now());
  checkAudience(tree, filters, 'condition');
  return compileAudience(tree, filters, 'condition');
}

function requireStatic(row: SegmentRow): void {
  if (row.type !== 'STATIC') {
    throw new AppError(
      400,
      'SEGMENT_NOT_STATIC',
      'Members are listed by hand only in static segments; a dynamic segment follows its condition',
      {
        suggestion: 'Change the condition of the dynamic segment, or create a static segment.',
      },
    );
  }
}

const tracking = (row: SegmentRow, now: Date) => ({
  projectId: row.project_id,
  segmentId: row.id,
  slug: row.slug,
  emit: row.track_membership,
  now,
});

/**
 * Lists contacts in a static segment by email. Unknown emails are created when `createMissing`
 * (with `subscribed`, default true) and reported in `notFound` otherwise. A tracked static segment
 * emits an entry event for each contact that was not a member yet.
 */
export async function addSegmentMembers(
  ctx: AppContext,
  projectId: string,
  id: string,
  input: { emails: string[]; createMissing: boolean; subscribed?: boolean },
) {
  const now = ctx.clock.now();
  const emails = [...new Set(input.emails)];
  return ctx.db.transaction(async (tx) => {
    const row = await requireSegment(tx, projectId, id, true);
    requireStatic(row);
    const found = await lookupEmails(tx, projectId, emails);
    const known = new Set(found.map((c) => c.email));
    const missing = emails.filter((e) => !known.has(e));
    const ids = found.map((c) => c.id);
    let created = 0;
    if (input.createMissing && missing.length > 0) {
      const results = await upsertContacts(
        ctx,
        tx,
        missing.map((email) => ({ email, subscribed: input.subscribed, patch: emptyPatch() })),
        { projectId, subscribedByDefault: true, source: 'segment', at: now },
      );
      for (const r of results) {
        ids.push(r.contact.id);
        if (r.isNew) created++;
      }
    }
    const added = await repo.addMembers(tx, tracking(row, now), ids);
    const after = await requireSegment(tx, projectId, id);
    await audit.record(tx, {
      projectId,
      action: 'segment.members_added',
      target: { type: 'segment', id },
      changes: { added, created },
    });
    return {
      segmentId: id,
      added,
      alreadyMembers: ids.length - added,
      created,
      notFound: input.createMissing ? [] : missing,
      memberCount: after.member_count,
    };
  });
}

/** Unlists contacts from a static segment by email; a tracked one emits their exit events. */
export async function removeSegmentMembers(
  ctx: AppContext,
  projectId: string,
  id: string,
  input: { emails: string[] },
) {
  const now = ctx.clock.now();
  const emails = [...new Set(input.emails)];
  return ctx.db.transaction(async (tx) => {
    const row = await requireSegment(tx, projectId, id, true);
    requireStatic(row);
    const found = await lookupEmails(tx, projectId, emails);
    const removed = new Set(
      await repo.removeMembers(
        tx,
        tracking(row, now),
        found.map((c) => c.id),
      ),
    );
    const after = await requireSegment(tx, projectId, id);
    await audit.record(tx, {
      projectId,
      action: 'segment.members_removed',
      target: { type: 'segment', id },
      changes: { removed: removed.size },
    });
    const removedEmails = new Set(found.filter((c) => removed.has(c.id)).map((c) => c.email));
    return {
      segmentId: id,
      removed: removed.size,
      notMembers: emails.filter((e) => !removedEmails.has(e)),
      memberCount: after.member_count,
    };
  });
}

/** Segments whose condition names a field or an event, for the usage endpoints. */
export function registerSegmentUsage(usage: UsageRegistry): void {
  registerFilterUsage(usage, 'segments', async (ex, projectId) =>
    (await repo.listSegments(ex, projectId)).flatMap((s) =>
      s.condition ? [{ id: s.id, name: s.name, condition: s.condition }] : [],
    ),
  );
}

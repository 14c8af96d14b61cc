import { type SQL, sql } from 'drizzle-orm';
import {
  type CompileContext,
  compileCondition,
  type FilterCondition,
  FilterError,
  filterReferences,
  type SegmentRef,
} from '../../domain/filters/index.js';
import type { Executor } from '../../platform/db/client.js';
import { validationError } from '../../platform/http/errors.js';
import type { UsageKind, UsageRegistry } from '../../platform/usage.js';
import { fieldTypes } from '../contacts/service.js';
import { allTopics } from '../topics/service.js';
import { projectSegmentRefs } from './repo.js';

/**
 * What the filter engine needs to judge a tree for a project: its field types and its segments.
 * `override` stands in for one segment as it will be once a pending change is saved.
 */
export async function filterContext(
  ex: Executor,
  projectId: string,
  now: Date,
  override?: SegmentRef,
): Promise<CompileContext> {
  const [types, segments, topics] = await Promise.all([
    fieldTypes(ex, projectId),
    projectSegmentRefs(ex, projectId),
    allTopics(ex, projectId),
  ]);
  const byId = new Map(segments.map((s) => [s.id, s]));
  const topicsById = new Map(topics.map((t) => [t.id, { id: t.id, defaultOn: t.default_on }]));
  if (override) byId.set(override.id, override);
  return {
    projectId,
    now,
    fieldTypes: Object.fromEntries(types.map((t) => [t.key, t.type])),
    segments: (id) => byId.get(id),
    topics: (id) => topicsById.get(id),
  };
}

/**
 * Whom a MARKETING campaign sends to among its audience's contacts (`contacts c`): the subscribed
 * ones (a snoozed contact is unsubscribed until its snooze ends). The campaign's fan-out and the
 * segment builder's counts read this one declaration, so a count never disagrees with a send.
 */
export const MARKETING_RECIPIENT: SQL = sql`c.subscribed`;

/**
 * A tree ready to be saved: every segment it names belongs to the project, and inlining the
 * segments it names ends (no cycle, bounded size). Faults are 422 field errors under `field`.
 */
export function checkAudience(condition: FilterCondition, ctx: CompileContext, field: string): void {
  const unknown = filterReferences(condition).segments.filter((id) => !ctx.segments(id));
  if (unknown.length > 0) {
    throw validationError([
      { field, message: `No segment of this project has the id ${unknown.join(', ')}`, code: 'unknown_segment' },
    ]);
  }
  compileAudience(condition, ctx, field);
}

/** The tree as one SQL condition over `contacts c`; a FilterError becomes a 422 under `field`. */
export function compileAudience(condition: FilterCondition, ctx: CompileContext, field: string): SQL {
  try {
    return compileCondition(condition, ctx);
  } catch (err) {
    if (err instanceof FilterError) throw validationError([{ field, message: err.message, code: err.code }]);
    throw err;
  }
}

/**
 * Registers what a module's filter trees reference with the usage endpoints: a field is used by a
 * tree naming it or a key under it (`data.company` by `data.company.size`), an event by name.
 */
export function registerFilterUsage(
  usage: UsageRegistry,
  kind: UsageKind,
  conditions: (ex: Executor, projectId: string) => Promise<{ id: string; name: string; condition: FilterCondition }[]>,
): void {
  const finder =
    (uses: (refs: ReturnType<typeof filterReferences>, name: string) => boolean) =>
    async (ex: Executor, projectId: string, name: string) =>
      (await conditions(ex, projectId))
        .filter((c) => uses(filterReferences(c.condition), name))
        .map((c) => ({ id: c.id, name: c.name }));
  usage.register(
    'field',
    kind,
    finder((refs, name) => refs.fields.some((f) => f === name || f.startsWith(`${name}.`))),
  );
  usage.register(
    'event',
    kind,
    finder((refs, name) => refs.events.includes(name)),
  );
}

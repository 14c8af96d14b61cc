/**
 * Where a template is parsed and rendered: on the event loop when that is proven cheap, in the
 * worker pool otherwise. One renderer per process.
 *
 * A source is first rendered (or checked) by the pool, under its deadline, so a source seen once
 * (a `/v1/send` body written for one request) never costs the event loop a parse. After that it is
 * admitted to the inline path when `inlineCandidate` allows: at most 16 KiB, whose parse is bounded
 * by its size (a few milliseconds at worst, once: the parse is cached), and no array filter (the
 * filters that outrun liquidjs' time limit). An inline render has limits ten times tighter than the
 * engine's (10 ms between nodes, 1,000,000 memory units); a render that reaches them three times
 * in a row is not an error but is handed to the pool, and the source is never inlined again. So
 * the event loop spends at most one bounded parse and three short renders on any source, whoever
 * wrote it and whatever the data, while a small template renders at the engine's full speed (a few
 * microseconds), which keeps a campaign of 100,000 messages cheap. Everything else costs the event loop one message to
 * a thread and back (about 50 µs) per render.
 *
 * A worker process (`inlineFirst`) skips the first pass through the pool: its sources are campaign
 * and workflow templates, rendered again and again, so an eligible one is parsed here at once
 * (within the same bound), and a campaign of small templates never starts a thread there.
 */
import {
  InlineLimitReached,
  inlineCandidate,
  parseCheck,
  renderInline,
  TemplateError,
  type TemplatePart,
} from '../../domain/render.js';
import { ContentLimitError, type UntrustedPool } from './pool.js';
import type { TemplateResult } from './tasks.js';

/** `inline`: admitted; `pool`: not (yet) admitted; `heavy`: once reached the inline limits, never inline again. */
type Placement = 'inline' | 'pool' | 'heavy';

/**
 * Inline renders in a row that may reach the limits before a source goes to the pool for good: a
 * pause of the whole process (a garbage collection, a core taken by another process) can outlast
 * the 10 ms between two nodes of one render, hardly of three in a row, and a source sent to the pool
 * by one pause would cost every later message of its campaign a thread's round trip.
 */
const INLINE_TRIES = 3;

/** Placements remembered per part; only of sources that may run inline (16 KiB at most), so at most 16 M characters. */
const REMEMBERED = 1000;

export class TemplateRenderer {
  private readonly placements: Record<TemplatePart, Map<string, Placement>> = { subject: new Map(), body: new Map() };

  constructor(
    private readonly pool: UntrustedPool,
    private readonly options: { inlineFirst?: boolean } = {},
  ) {}

  /** One part rendered for one scope; TemplateError when it cannot be, PoolBusyError when the pool is full. */
  async render(part: TemplatePart, source: string, scope: Record<string, unknown>): Promise<string> {
    if (this.where(part, source) === 'inline') {
      for (let tries = 1; ; tries++) {
        try {
          return renderInline(source, part, scope);
        } catch (err) {
          if (!(err instanceof InlineLimitReached)) throw err;
          if (tries === INLINE_TRIES) break;
        }
      }
      this.place(part, source, 'heavy');
    }
    const result = await this.inPool(part, source, scope);
    if (!result.ok) throw new TemplateError(part, result.message);
    return result.output;
  }

  /** Throws TemplateError on a syntax error (or a parse beyond the bounds); used when a template is saved. */
  async check(part: TemplatePart, source: string): Promise<void> {
    if (this.where(part, source) === 'inline') return parseCheck(source, part);
    const result = await this.inPool(part, source);
    if (!result.ok) throw new TemplateError(part, result.message);
  }

  /** Where the source stands now (for tests and metrics). */
  placement(part: TemplatePart, source: string): Placement | undefined {
    return this.placements[part].get(source);
  }

  /** The placement, deciding it for a source not seen yet when `inlineFirst`. */
  private where(part: TemplatePart, source: string): Placement | undefined {
    const known = this.placement(part, source);
    if (known || !this.options.inlineFirst || !inlineCandidate(source)) return known;
    this.place(part, source, 'inline');
    return 'inline';
  }

  private async inPool(part: TemplatePart, source: string, scope?: Record<string, unknown>): Promise<TemplateResult> {
    let result: TemplateResult;
    try {
      result = await this.pool.template({ part, source, scope });
    } catch (err) {
      if (!(err instanceof ContentLimitError)) throw err;
      this.place(part, source, 'heavy');
      throw new TemplateError(part, `${scope ? 'Rendering' : 'Parsing'} ${err.message}`);
    }
    if (this.placement(part, source) !== 'heavy')
      this.place(part, source, result.ok && inlineCandidate(source) ? 'inline' : 'pool');
    return result;
  }

  private place(part: TemplatePart, source: string, placement: Placement): void {
    if (!inlineCandidate(source)) return; // always in the pool: nothing to remember (and no large string kept)
    const map = this.placements[part];
    map.delete(source); // re-inserted last: the least recently placed is forgotten first
    if (map.size >= REMEMBERED) map.delete(map.keys().next().value!);
    map.set(source, placement);
  }
}

/**
 * Renders email subjects and HTML bodies with Liquid (liquidjs). Pure logic, no I/O.
 *
 * Escaping: a body is HTML, so every `{{ }}` output is HTML-escaped (`& < > " '`) unless its last
 * filter is `raw` (`{{ snippet | raw }}`); an explicit `| escape` is not escaped a second time.
 * URLs need no exception: their only character that escaping changes is `&`, and `&amp;` is what
 * belongs inside an `href` attribute. A subject is plain text (a header, not HTML), so it is never
 * escaped; line breaks in it become spaces, since a header is one line.
 *
 * `??` (missing-value default, a custom liquidjs operator): `a ?? b` is `b` when `a` is undefined
 * or null, as in JavaScript. An empty string or `false` is a value, not missing (for "missing or
 * empty" use Liquid's `default` filter). It binds like JavaScript's: looser than comparisons
 * (`a ?? b == c` is `a ?? (b == c)`), tighter than `and`/`or`; filters apply to the whole chain
 * (`{{ name ?? "friend" | upcase }}`); parentheses group (`{% if (plan ?? "free") == "pro" %}`).
 *
 * Keys with spaces: `{{ first name }}` is not a Liquid expression (Liquid would silently render
 * `first`), so before parsing such a placeholder becomes the bracket lookup `{{ ["first name"] }}`.
 *
 * Safety: templates come from users, so no file is ever read (`include`, `render` and `layout` do
 * not exist), only own properties of the data are visible, unknown filters are errors, and parse
 * size, render time and allocations are bounded. Every failure is a TemplateError.
 *
 * Where a template runs: liquidjs checks its render limit between nodes only, so one filter that
 * loops over an array (`where_exp` nested in `where_exp`, `sum`, `find`…) runs past it, and its
 * parser is superlinear on some sources. The functions here are therefore the engine of the
 * worker-thread pool (platform/untrusted), which stops a thread at a hard deadline; only sources
 * that `inlineCandidate` admits may also be rendered on the caller's thread, by `renderInline`,
 * under limits ten times tighter that throw InlineLimitReached instead of failing.
 */
import { defaultOperators, Liquid, type Operators, type Template } from 'liquidjs';

export type TemplatePart = 'subject' | 'body';

export class TemplateError extends Error {
  constructor(
    readonly part: TemplatePart,
    message: string,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** Variables a template sees for one recipient. */
export function templateScope(
  contact: { id: string; email: string; data: Record<string, unknown> },
  transient: Record<string, unknown>,
  urls: { unsubscribeUrl: string; subscribeUrl: string; manageUrl: string },
): Record<string, unknown> {
  const data = { ...contact.data, ...transient };
  // Service values come last: a data key can never impersonate the recipient or their links.
  return {
    ...data,
    data,
    email: contact.email,
    id: contact.id,
    svc_email: contact.email,
    svc_id: contact.id,
    unsubscribeUrl: urls.unsubscribeUrl,
    subscribeUrl: urls.subscribeUrl,
    manageUrl: urls.manageUrl,
  };
}

// liquidjs types operators as boolean-valued, but it pushes whatever they return as the value.
const operators = {
  ...defaultOperators,
  '??': ((lhs: unknown, rhs: unknown) => lhs ?? rhs) as unknown as Operators[string],
};

function createEngine(escapeOutput: boolean): Liquid {
  const engine = new Liquid({
    operators,
    groupedExpressions: true,
    outputEscape: escapeOutput ? 'escape' : undefined,
    templates: {}, // an empty in-memory file system, in case a file lookup were ever reached
    ownPropertyOnly: true,
    strictFilters: true,
    parseLimit: 10_000_000, // characters; Gmail clips a body at 102 KB
    renderLimit: 200, // ms
    memoryLimit: 10_000_000, // liquidjs' units: range sizes, string lengths; charged before allocating
  });
  for (const tag of ['include', 'render', 'layout']) delete engine.tags[tag];
  if (escapeOutput) {
    for (const name of ['escape', 'escape_once', 'xml_escape']) {
      const filter = engine.filters[name]!;
      engine.registerFilter(name, { handler: typeof filter === 'function' ? filter : filter.handler, raw: true });
    }
  }
  return engine;
}

const engines: Record<TemplatePart, Liquid> = { subject: createEngine(false), body: createEngine(true) };
const CACHE_SIZE = 1000;
/** Characters of source kept parsed per part: with the count, bounds the cache's memory, whatever the sizes. */
const CACHE_CHARS = 4_000_000;
const caches: Record<TemplatePart, { entries: Map<string, Template[]>; chars: number }> = {
  subject: { entries: new Map(), chars: 0 },
  body: { entries: new Map(), chars: 0 },
};

function compile(source: string, part: TemplatePart): Template[] {
  const cache = caches[part];
  let parsed = cache.entries.get(source);
  if (parsed) {
    cache.entries.delete(source); // Map keeps insertion order: re-inserting marks it most recently used
    cache.entries.set(source, parsed);
    return parsed;
  }
  try {
    parsed = engines[part].parse(rewritePlaceholders(source));
  } catch (error) {
    throw asTemplateError(error, part);
  }
  if (source.length > CACHE_CHARS) return parsed;
  while (cache.entries.size >= CACHE_SIZE || cache.chars + source.length > CACHE_CHARS) {
    const oldest = cache.entries.keys().next().value!;
    cache.entries.delete(oldest);
    cache.chars -= oldest.length;
  }
  cache.entries.set(source, parsed);
  cache.chars += source.length;
  return parsed;
}

function render(source: string, part: TemplatePart, scope: Record<string, unknown>): string {
  const parsed = compile(source, part);
  try {
    return String(engines[part].renderSync(parsed, scope));
  } catch (error) {
    throw asTemplateError(error, part);
  }
}

/**
 * The bounds of a render on the caller's thread (the event loop): sources of at most 16 KiB without
 * array filters (parsing one costs at most a few milliseconds, whatever it holds: see
 * test/unit/hostile-bounds), at most 10 ms between nodes and 1,000,000 memory units (liquidjs'
 * units: array sizes, string lengths). Reaching one is no failure: the caller hands the render to
 * the worker pool, whose limits are the engine's (200 ms, 10,000,000) with a hard deadline behind.
 */
export const INLINE_LIMITS = { sourceChars: 16 * 1024, renderMs: 10, memory: 1_000_000 } as const;

/** An inline render reached INLINE_LIMITS: render it again in the worker pool. */
export class InlineLimitReached extends Error {
  constructor(readonly part: TemplatePart) {
    super(`The ${part} needs more than the inline render limits`);
    this.name = 'InlineLimitReached';
  }
}

/**
 * Filters whose cost grows with an array's length or runs an expression per element; liquidjs
 * checks its time limit only between template nodes, so one call of these can outlast it. A source
 * naming one (anywhere, quoted expressions included) never runs inline.
 */
const ARRAY_FILTER = new RegExp(
  String.raw`\|\s*(?:where|where_exp|reject|reject_exp|find|find_exp|find_index|find_index_exp|has|has_exp|` +
    'group_by|group_by_exp|sum|map|sort|sort_natural|uniq|sample|compact|concat|push|pop|shift|unshift|' +
    String.raw`reverse|join)\b`,
);

/** Whether a source may be rendered on the caller's thread: small, and no array filter. */
export function inlineCandidate(source: string): boolean {
  return source.length <= INLINE_LIMITS.sourceChars && !ARRAY_FILTER.test(source);
}

// liquidjs' limits, and V8's (a string, an array or the stack grown too far), as a render error says them.
const LIMIT_MESSAGE =
  /(?:template render|memory alloc) limit exceeded|Maximum call stack size exceeded|Invalid (?:string|array) length/;

/**
 * Renders under INLINE_LIMITS a source that `inlineCandidate` admitted (the caller checks, once per
 * source: the check reads the whole source); throws InlineLimitReached when a limit is reached,
 * TemplateError on any other failure.
 */
export function renderInline(source: string, part: TemplatePart, scope: Record<string, unknown>): string {
  const parsed = compile(source, part);
  let output: string;
  try {
    output = String(
      engines[part].renderSync(parsed, scope, {
        renderLimit: INLINE_LIMITS.renderMs,
        memoryLimit: INLINE_LIMITS.memory,
      }),
    );
  } catch (error) {
    if (error instanceof Error && LIMIT_MESSAGE.test(error.message)) throw new InlineLimitReached(part);
    throw asTemplateError(error, part);
  }
  return part === 'subject' ? oneLine(output) : output;
}

/** Renders a part with the engine's own limits (in the worker pool); a subject comes out on one line. */
export function renderPart(source: string, part: TemplatePart, scope: Record<string, unknown>): string {
  return part === 'subject' ? renderSubject(source, scope) : renderBody(source, scope);
}

/** liquidjs' own words for its limits, and ours: a render stopped between nodes reads like one stopped at the deadline. */
const LIMIT_WORDS: [RegExp, string][] = [
  [/template render limit exceeded/, 'Rendering took longer than 0.2 s (the limit) and was stopped'],
  [/memory alloc limit exceeded/, 'Rendering needed more memory than allowed (the limit) and was stopped'],
];

function asTemplateError(error: unknown, part: TemplatePart): TemplateError {
  const message = error instanceof Error ? error.message : String(error);
  const limit = LIMIT_WORDS.find(([said]) => said.test(message));
  return new TemplateError(part, limit ? limit[1] : message);
}

/** Throws TemplateError on a syntax error; used to validate templates when saved and to render. */
export function parseCheck(source: string, part: TemplatePart): void {
  compile(source, part);
}

export function renderSubject(source: string, scope: Record<string, unknown>): string {
  return oneLine(render(source, 'subject', scope));
}

/**
 * Each line break, with the white space around it, becomes one space. (Not the regular expression
 * `\s*[\r\n]+\s*`, which is quadratic on a long run of spaces without a line break.)
 */
function oneLine(text: string): string {
  if (!/[\r\n]/.test(text)) return text;
  const lines = text.split(/[\r\n]\s*/);
  return lines.map((line, i) => (i < lines.length - 1 ? line.trimEnd() : line)).join(' ');
}

export function renderBody(source: string, scope: Record<string, unknown>): string {
  return render(source, 'body', scope);
}

// `raw` and `comment` blocks are skipped whole, so that their contents stay untouched.
const NEXT_PLACEHOLDER = /\{%-?\s*(raw|comment)\s*-?%\}|\{\{/g;
const BLOCK_END = { raw: /\{%-?\s*endraw\s*-?%\}/g, comment: /\{%-?\s*endcomment\s*-?%\}/g } as const;
// String literals, `??`, `|`, other text: enough to find operands without being fooled by quotes.
const PIECE = /"[^"]*"|'[^']*'|\?\?|\||[^"'?|]+|[\s\S]/g;
const SPACED_KEY = /^[\p{L}_][\p{L}\p{N}_-]*(?: [\p{L}_][\p{L}\p{N}_-]*)+$/u;

/** Plain words separated by single spaces, which Liquid would not read as an expression (`a and b` it would). */
function isSpacedKey(text: string): boolean {
  return SPACED_KEY.test(text) && !text.split(' ').some((word) => Object.hasOwn(operators, word));
}

/**
 * Rewrites `{{ first name ?? "there" }}` to `{{ ["first name"] ?? "there" }}`; rejects `??` missing an operand.
 * One pass from left to right: an unclosed `{{` or block ends the scan (Liquid then reports it),
 * so no part of the source is read twice, whatever it holds.
 */
function rewritePlaceholders(source: string): string {
  if (!source.includes('{{')) return source;
  const next = new RegExp(NEXT_PLACEHOLDER.source, 'g');
  let out = '';
  let from = 0;
  for (let m = next.exec(source); m; m = next.exec(source)) {
    const start = m.index;
    if (m[1] !== undefined) {
      const end = new RegExp(BLOCK_END[m[1] as keyof typeof BLOCK_END].source, 'g');
      end.lastIndex = start + m[0].length;
      const closed = end.exec(source);
      if (!closed) break;
      next.lastIndex = closed.index + closed[0].length;
      continue;
    }
    const close = source.indexOf('}}', start + 2);
    if (close < 0) break;
    let inner = source.slice(start + 2, close);
    const open = inner.startsWith('-') ? '-' : '';
    if (open) inner = inner.slice(1);
    const closing = inner.endsWith('-') ? '-' : '';
    if (closing) inner = inner.slice(0, -1);
    const whole = source.slice(start, close + 2);
    out += source.slice(from, start) + rewritePlaceholder(whole, open, inner, closing);
    from = close + 2;
    next.lastIndex = from;
  }
  return out + source.slice(from);
}

function rewritePlaceholder(whole: string, open: string, inner: string, close: string): string {
  const pieces: string[] = inner.match(PIECE) ?? [];
  const pipe = pieces.indexOf('|');
  const operands: string[] = [''];
  for (const piece of pipe < 0 ? pieces : pieces.slice(0, pipe)) {
    if (piece === '??') operands.push('');
    else operands[operands.length - 1] += piece;
  }
  if (operands.length === 1 && !isSpacedKey(operands[0]!.trim())) return whole;
  if (operands.length > 1 && operands.some((operand) => !operand.trim())) {
    throw new Error(`"??" needs a value on each side: ${whole}`);
  }
  const head = operands.map((operand) => {
    const words = operand.trim();
    if (!isSpacedKey(words)) return operand;
    const before = operand.slice(0, operand.length - operand.trimStart().length);
    const after = operand.slice(operand.trimEnd().length);
    return `${before}["${words}"]${after}`;
  });
  return `{{${open}${head.join('??')}${pipe < 0 ? '' : pieces.slice(pipe).join('')}${close}}}`;
}

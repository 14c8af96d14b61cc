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
 */
import { Liquid, defaultOperators, type Operators, type Template } from 'liquidjs';

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
const operators = { ...defaultOperators, '??': ((lhs: unknown, rhs: unknown) => lhs ?? rhs) as unknown as Operators[string] };

function createEngine(escape: boolean): Liquid {
  const engine = new Liquid({
    operators,
    groupedExpressions: true,
    outputEscape: escape ? 'escape' : undefined,
    templates: {}, // an empty in-memory file system, in case a file lookup were ever reached
    ownPropertyOnly: true,
    strictFilters: true,
    parseLimit: 10_000_000, // characters; Gmail clips a body at 102 KB
    renderLimit: 200, // ms
    memoryLimit: 10_000_000, // liquidjs' units: range sizes, string lengths; charged before allocating
  });
  for (const tag of ['include', 'render', 'layout']) delete engine.tags[tag];
  if (escape) {
    for (const name of ['escape', 'escape_once', 'xml_escape']) {
      const filter = engine.filters[name]!;
      engine.registerFilter(name, { handler: typeof filter === 'function' ? filter : filter.handler, raw: true });
    }
  }
  return engine;
}

const engines: Record<TemplatePart, Liquid> = { subject: createEngine(false), body: createEngine(true) };
const CACHE_SIZE = 1000;
const caches: Record<TemplatePart, Map<string, Template[]>> = { subject: new Map(), body: new Map() };

function compile(source: string, part: TemplatePart): Template[] {
  const cache = caches[part];
  let parsed = cache.get(source);
  if (parsed) {
    cache.delete(source); // Map keeps insertion order: re-inserting marks it most recently used
  } else {
    try {
      parsed = engines[part].parse(rewritePlaceholders(source));
    } catch (error) {
      throw asTemplateError(error, part);
    }
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  cache.set(source, parsed);
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

function asTemplateError(error: unknown, part: TemplatePart): TemplateError {
  return new TemplateError(part, error instanceof Error ? error.message : String(error));
}

/** Throws TemplateError on a syntax error; used to validate templates when saved and to render. */
export function parseCheck(source: string, part: TemplatePart): void {
  compile(source, part);
}

export function renderSubject(source: string, scope: Record<string, unknown>): string {
  return render(source, 'subject', scope).replace(/\s*[\r\n]+\s*/g, ' ');
}

export function renderBody(source: string, scope: Record<string, unknown>): string {
  return render(source, 'body', scope);
}

// `raw` and `comment` blocks are matched first so that their contents stay untouched.
const PLACEHOLDER = /\{%-?\s*(raw|comment)\s*-?%\}[\s\S]*?\{%-?\s*end\1\s*-?%\}|\{\{(-?)([\s\S]*?)(-?)\}\}/g;
// String literals, `??`, `|`, other text: enough to find operands without being fooled by quotes.
const PIECE = /"[^"]*"|'[^']*'|\?\?|\||[^"'?|]+|[\s\S]/g;
const SPACED_KEY = /^[\p{L}_][\p{L}\p{N}_-]*(?: [\p{L}_][\p{L}\p{N}_-]*)+$/u;

/** Plain words separated by single spaces, which Liquid would not read as an expression (`a and b` it would). */
function isSpacedKey(text: string): boolean {
  return SPACED_KEY.test(text) && !text.split(' ').some((word) => Object.hasOwn(operators, word));
}

/** Rewrites `{{ first name ?? "there" }}` to `{{ ["first name"] ?? "there" }}`; rejects `??` missing an operand. */
function rewritePlaceholders(source: string): string {
  if (!source.includes('{{')) return source;
  return source.replace(PLACEHOLDER, (whole, _block, open?: string, inner?: string, close?: string) => {
    if (inner === undefined) return whole;
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
    const head = operands.map((operand) => operand.replace(/^(\s*)(.*?)(\s*)$/s, (text, before: string, words: string, after: string) =>
      isSpacedKey(words) ? `${before}["${words}"]${after}` : text,
    ));
    return `{{${open}${head.join('??')}${pipe < 0 ? '' : pieces.slice(pipe).join('')}${close}}}`;
  });
}

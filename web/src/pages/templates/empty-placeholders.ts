import { type TagToken, Tokenizer, TokenKind, type TopLevelToken } from 'liquidjs';

/**
 * The placeholders of a template that would print nothing for one recipient: `{{ plan }}` when
 * the contact has no `plan`, which renders "on the  plan" with no warning. A placeholder with a
 * `??` default (`{{ plan ?? "free" }}`) or Liquid's `default` filter says what to print instead,
 * so it is not listed; neither is a variable the template sets itself (`for`, `assign`, `capture`…)
 * nor an expression that is not a variable (a literal, a comparison).
 *
 * Liquid's own tokenizer finds the `{{ }}` outputs (inside `if` and `for` blocks too, not inside
 * `raw`); the variable is looked up in the scope the server renders with (`templateScope`).
 */

export interface EmptyPlaceholder {
  /** As written in the template: `plan`, `data.city`, `first name`. */
  name: string;
  parts: ('subject' | 'body')[];
}

const BINDING_TAGS: Record<string, RegExp> = {
  for: /^([A-Za-z_][\w-]*)\s+in\b/,
  tablerow: /^([A-Za-z_][\w-]*)\s+in\b/,
  assign: /^([A-Za-z_][\w-]*)\s*=/,
  capture: /^([A-Za-z_][\w-]*)/,
  increment: /^([A-Za-z_][\w-]*)/,
  decrement: /^([A-Za-z_][\w-]*)/,
};
const LOOP_VARIABLES = ['forloop', 'tablerowloop'];

const IDENT = '[A-Za-z_][\\w-]*';
const INDEX = `\\[\\s*(?:"[^"]*"|'[^']*'|\\d+)\\s*\\]`;
const PATH = new RegExp(`^(?:${IDENT}|${INDEX})(?:\\.${IDENT}|${INDEX})*$`);
// `{{ first name }}`: the server reads a key with spaces as one key (`["first name"]`).
const SPACED_KEY = new RegExp(`^${IDENT}(?: +${IDENT})+$`);

/** The expression before the first filter, and the filters' names. */
function splitFilters(content: string): { expression: string; filters: string[] } {
  const parts: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < content.length; i++) {
    const ch = content[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '|') {
      parts.push(content.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(content.slice(start));
  const [expression = '', ...filters] = parts.map((p) => p.trim());
  return { expression, filters: filters.map((f) => f.split(':')[0]!.trim()) };
}

/** The path's keys: `data.city` → data, city; `["first name"]` → first name. */
function pathKeys(expression: string): string[] {
  if (SPACED_KEY.test(expression)) return [expression.replace(/ +/g, ' ')];
  const keys: string[] = [];
  const step = new RegExp(`\\.?(${IDENT})|\\[\\s*(?:"([^"]*)"|'([^']*)'|(\\d+))\\s*\\]`, 'g');
  for (let m = step.exec(expression); m; m = step.exec(expression)) keys.push(m[1] ?? m[2] ?? m[3] ?? m[4]!);
  return keys;
}

function lookup(scope: Record<string, unknown>, keys: readonly string[]): unknown {
  let value: unknown = scope;
  for (const key of keys) {
    if ((Array.isArray(value) || typeof value === 'string') && key === 'size') value = value.length;
    else if (value !== null && typeof value === 'object' && Object.hasOwn(value, key))
      value = (value as Record<string, unknown>)[key];
    else return undefined;
  }
  return value;
}

const printsNothing = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/** The variable an output prints nothing for, or null when it prints something or is not a plain variable. */
function emptyVariable(content: string, scope: Record<string, unknown>, bound: ReadonlySet<string>): string | null {
  if (content.includes('??')) return null;
  const { expression, filters } = splitFilters(content);
  if (filters.includes('default')) return null;
  if (!PATH.test(expression) && !SPACED_KEY.test(expression)) return null;
  const keys = pathKeys(expression);
  if (keys.length === 0 || bound.has(keys[0]!)) return null;
  return printsNothing(lookup(scope, keys)) ? expression.replace(/ +/g, ' ') : null;
}

function outputsOf(source: string): { outputs: string[]; bound: Set<string> } {
  const bound = new Set(LOOP_VARIABLES);
  const outputs: string[] = [];
  let tokens: TopLevelToken[];
  try {
    tokens = new Tokenizer(source).readTopLevelTokens();
  } catch {
    // A template that does not parse has no preview either; the render error says why.
    return { outputs, bound };
  }
  for (const t of tokens) {
    if (t.kind === TokenKind.Output) outputs.push((t as Extract<TopLevelToken, { content: string }>).content.trim());
    else if (t.kind === TokenKind.Tag) {
      const tag = t as TagToken;
      const binding = BINDING_TAGS[tag.name]?.exec(tag.args.trim());
      if (binding) bound.add(binding[1]!);
    }
  }
  return { outputs, bound };
}

/** The placeholders of the subject and body that print nothing with `scope`, in the order they appear. */
export function emptyPlaceholders(
  template: { subject: string; body: string },
  scope: Record<string, unknown>,
): EmptyPlaceholder[] {
  const found = new Map<string, EmptyPlaceholder>();
  for (const part of ['subject', 'body'] as const) {
    const { outputs, bound } = outputsOf(template[part]);
    for (const content of outputs) {
      const name = emptyVariable(content, scope, bound);
      if (!name) continue;
      const entry = found.get(name) ?? { name, parts: [] };
      if (!entry.parts.includes(part)) entry.parts.push(part);
      found.set(name, entry);
    }
  }
  return [...found.values()];
}

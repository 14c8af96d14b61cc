/**
 * Between the block editor's document and a Liquid template body. React escapes every `"` it
 * prints (`{{ a ?? "b" }}` would reach Liquid as `{{ a ?? &quot;b&quot; }}`), so Liquid never passes
 * through the email renderer as itself: each piece becomes an inert token of letters and digits
 * before rendering (`protectLiquid`, and the Liquid nodes print tokens), and the tokens become the
 * Liquid again in the finished HTML (`restoreLiquid`). Pure logic: no editor, no DOM.
 */

/** A node of the editor's document, as Tiptap's `getJSON()` gives it. */
export interface DocNode {
  type?: string;
  attrs?: Record<string, unknown>;
  content?: DocNode[];
  marks?: { type: string; attrs?: Record<string, unknown> }[];
  text?: string;
  [key: string]: unknown;
}

const TOKEN = /@@liquid:([A-Za-z0-9_-]+)@@/g;
/** An output `{{ … }}` or a tag `{% … %}` as a writer types it. */
const LIQUID = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(encoded: string): string {
  const binary = atob(encoded.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** The Liquid as a token that no escaping, URL check or formatter changes. */
export function liquidToken(liquid: string): string {
  return `@@liquid:${toBase64Url(liquid)}@@`;
}

/** Every Liquid output and tag in a string, as tokens. */
export function protectText(text: string): string {
  return text.replace(LIQUID, (liquid) => liquidToken(liquid));
}

/**
 * The tokens of rendered HTML as the Liquid they stand for. The empty comments React puts between
 * neighbouring pieces of text (a field inside a sentence) go too: they mean nothing in the email.
 */
export function restoreLiquid(html: string): string {
  return html.replace(/<!-- -->/g, '').replace(TOKEN, (_, encoded: string) => fromBase64Url(encoded));
}

function protectValue(value: unknown): unknown {
  if (typeof value === 'string') return protectText(value);
  if (Array.isArray(value)) return value.map(protectValue);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, protectValue(v)]));
  }
  return value;
}

/**
 * A copy of the document whose typed Liquid (in text, in links, in any attribute such as a button's
 * href or an image's src) is tokens, ready for the email renderer.
 */
export function protectLiquid(node: DocNode): DocNode {
  return {
    ...node,
    ...(node.text !== undefined ? { text: protectText(node.text) } : {}),
    ...(node.attrs ? { attrs: protectValue(node.attrs) as Record<string, unknown> } : {}),
    ...(node.marks ? { marks: node.marks.map((m) => ({ ...m, attrs: protectValue(m.attrs) as typeof m.attrs })) } : {}),
    ...(node.content ? { content: node.content.map(protectLiquid) } : {}),
  };
}

const IDENTIFIER_PATH = /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$/;

/** How Liquid names a contact field: `firstName`, `company.name`, or `data["first name"]`. */
export function fieldExpression(key: string): string {
  return IDENTIFIER_PATH.test(key) ? key : `data[${JSON.stringify(key)}]`;
}

/** A Liquid string literal; Liquid strings have no escapes, so the quote the text lacks is used. */
export function liquidString(text: string): string {
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  return `"${text.replace(/"/g, '')}"`;
}

export interface FieldAttrs {
  field: string;
  fallback: string | null;
}

/** `{{ field ?? "fallback" }}`, or `{{ field }}` without a fallback. */
export function fieldLiquid({ field, fallback }: FieldAttrs): string {
  const name = fieldExpression(field);
  return fallback ? `{{ ${name} ?? ${liquidString(fallback)} }}` : `{{ ${name} }}`;
}

export const COMPARISONS = {
  present: 'has a value',
  absent: 'has no value',
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
} as const;
export type Comparison = keyof typeof COMPARISONS;

export interface ConditionAttrs {
  field: string;
  comparison: Comparison;
  value: string;
}

/** A value as Liquid compares it: numbers and booleans bare for fields of those types, else a string. */
function comparedValue(value: string, type: string | undefined): string {
  if (type === 'number' && /^-?\d+(\.\d+)?$/.test(value.trim())) return value.trim();
  if (type === 'boolean' && /^(true|false)$/.test(value.trim())) return value.trim();
  return liquidString(value);
}

/** The opening tag of a condition block; `type` is the field's type in the contact fields list. */
export function conditionLiquid({ field, comparison, value }: ConditionAttrs, type?: string): string {
  const name = fieldExpression(field);
  switch (comparison) {
    case 'present':
      return `{% if ${name} %}`;
    case 'absent':
      return `{% unless ${name} %}`;
    case 'equals':
      return `{% if ${name} == ${comparedValue(value, type)} %}`;
    case 'notEquals':
      return `{% if ${name} != ${comparedValue(value, type)} %}`;
    case 'contains':
      return `{% if ${name} contains ${liquidString(value)} %}`;
    default:
      return assertNever(comparison);
  }
}

/** The closing tag that matches `conditionLiquid`'s opening. */
export function conditionEnd(comparison: Comparison): string {
  return comparison === 'absent' ? '{% endunless %}' : '{% endif %}';
}

/** "Shown when plan is "pro"": the condition in words, for the block's label. */
export function conditionLabel({ field, comparison, value }: ConditionAttrs): string {
  if (!field) return 'Shown when… (choose a field)';
  const tail = comparison === 'present' || comparison === 'absent' ? '' : ` “${value}”`;
  return `Shown when ${field} ${COMPARISONS[comparison]}${tail}`;
}

function assertNever(x: never): never {
  throw new Error(`Unexpected ${String(x)}`);
}

/** What `bodySource` holds for a body written in blocks. */
export interface BlockSource {
  editor: 'react-email';
  version: 1;
  /** The editor's document (Tiptap JSON). */
  document: DocNode;
  /** `hashBody` of the HTML the document produced: when the body differs, the document is stale. */
  bodyHash: string;
}

/** A short fingerprint of a body (53-bit cyrb53): equal bodies, equal hashes. */
export function hashBody(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

export function blockSource(document: DocNode, html: string): BlockSource {
  return { editor: 'react-email', version: 1, document, bodyHash: hashBody(html) };
}

/** The stored `bodySource` if it is a block document this editor reads, else null. */
export function readBlockSource(value: unknown): BlockSource | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Partial<BlockSource>;
  if (v.editor !== 'react-email' || v.version !== 1 || typeof v.bodyHash !== 'string') return null;
  if (!v.document || typeof v.document !== 'object' || v.document.type !== 'doc') return null;
  return v as BlockSource;
}

/** True when the body was changed after the blocks last produced it (as code, or through the API). */
export function isStale(source: BlockSource, body: string): boolean {
  return source.bodyHash !== hashBody(body);
}

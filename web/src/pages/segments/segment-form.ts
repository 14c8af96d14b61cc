/**
 * The segment page's rules that need no browser: labels, the form and what is sent, where the
 * server's errors go, the addresses in a paste or a CSV, and the words for a computation.
 */
import type { FilterCondition, Segment, SegmentType } from '../../../../src/api.js';
import type { FieldError } from '../../api/errors.js';
import { emptyCondition, pruneEmpty } from '../../components/filter-builder/filter-tree.js';
import { readCsv } from '../contacts/csv-preview.js';
import type { SegmentInput } from './segments-api.js';

export interface SegmentForm {
  name: string;
  description: string;
  type: SegmentType;
  condition: FilterCondition;
  trackMembership: boolean;
}

export const EMPTY_FORM: SegmentForm = {
  name: '',
  description: '',
  type: 'DYNAMIC',
  condition: emptyCondition(),
  trackMembership: false,
};

export function formOf(s: Segment): SegmentForm {
  return {
    name: s.name,
    description: s.description ?? '',
    type: s.type,
    condition: (s.condition as FilterCondition | null) ?? emptyCondition(),
    trackMembership: s.trackMembership,
  };
}

/** What a save sends: the condition without its empty groups, and only for a dynamic segment. */
export function segmentPayload(form: SegmentForm, isNew: boolean): SegmentInput {
  return {
    name: form.name,
    description: form.description.trim() === '' ? null : form.description,
    ...(isNew ? { type: form.type } : {}),
    ...(form.type === 'DYNAMIC' ? { condition: pruneEmpty(form.condition) } : {}),
    trackMembership: form.trackMembership,
  };
}

export function isDirty(form: SegmentForm, saved: SegmentForm): boolean {
  return JSON.stringify(segmentPayload(form, true)) !== JSON.stringify(segmentPayload(saved, true));
}

/**
 * The server's field errors split between the form's own fields and the tree: `condition.groups.0…`
 * goes to the builder without its `condition.` prefix, `condition` alone to the whole tree.
 */
export function splitErrors(errors: readonly FieldError[]): {
  form: Record<string, string>;
  tree: Record<string, string>;
} {
  const form: Record<string, string> = {};
  const tree: Record<string, string> = {};
  for (const e of errors) {
    if (e.field === 'condition') tree[''] ??= e.message;
    else if (e.field.startsWith('condition.')) tree[e.field.slice('condition.'.length)] ??= e.message;
    else form[e.field] ??= e.message;
  }
  return { form, tree };
}

/** A loose address shape: the server checks each one properly. */
const ADDRESS = /[^\s,;<>"'()]+@[^\s,;<>"'()]+\.[^\s,;<>"'()]+/g;

/**
 * The addresses in what was pasted or dropped: a CSV with an "email" column takes that column;
 * anything else (one per line, commas, "Name <a@b.c>") every address-like word. Each once, in order,
 * ignoring case.
 */
export function addressesIn(text: string): string[] {
  const end = text.indexOf('\n');
  const firstLine = (end < 0 ? text : text.slice(0, end)).toLowerCase();
  let found: string[] = [];
  if (/(^|[,;\t])\s*"?email"?\s*([,;\t]|$)/.test(firstLine.trim())) {
    let column = -1;
    try {
      readCsv(text, (cells, index) => {
        if (index === 0) column = cells.findIndex((c) => c.trim().toLowerCase() === 'email');
        else if (column >= 0 && cells[column]) found.push(cells[column]!.trim());
      });
    } catch {
      found = [];
    }
  }
  if (found.length === 0) found = text.match(ADDRESS) ?? [];
  const seen = new Set<string>();
  return found.filter((a) => {
    const key = a.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Addresses per request to the members endpoints (the API takes at most 1,000). */
export const MEMBER_BATCH = 1000;

export function batches<T>(items: readonly T[], size = MEMBER_BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const numberFormat = new Intl.NumberFormat();

/** "12 added · 3 removed · 1,204 in total", after a compute or an add/remove. */
export function changeWords(c: { added: number; removed: number; total: number }): string {
  return `${numberFormat.format(c.added)} added · ${numberFormat.format(c.removed)} removed · ${numberFormat.format(
    c.total,
  )} in total`;
}

/** The membership events of a tracked segment. */
export const membershipEvents = (slug: string) => ({ entry: `segment.${slug}.entry`, exit: `segment.${slug}.exit` });

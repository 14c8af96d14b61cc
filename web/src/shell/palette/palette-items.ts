import type { NavPage } from '../navigation.js';

/** One place the palette can jump to. */
export interface PaletteItem {
  id: string;
  /** A page's group in the navigation (Audience, Setup…), or the kind of thing found. */
  group: string;
  label: string;
  /** Where it leads, below /app. */
  to: string;
  hint?: string;
}

const normalise = (s: string) => s.trim().toLowerCase();

/**
 * Pages whose name or group holds every word typed ("audience" lists its pages), in the order of the
 * nav; all of them for an empty query.
 */
export function matchingPages(query: string, pages: readonly NavPage[]): PaletteItem[] {
  const words = normalise(query).split(/\s+/).filter(Boolean);
  return pages
    .filter((p) => words.every((w) => `${p.label} ${p.group}`.toLowerCase().includes(w)))
    .map((p) => ({ id: `page:${p.to}`, group: p.group, label: p.label, to: p.to, hint: p.description }));
}

/** Consecutive items of one group together, in their order: the palette's sections. */
export function groupItems(items: readonly PaletteItem[]): { group: string; items: PaletteItem[] }[] {
  const groups: { group: string; items: PaletteItem[] }[] = [];
  for (const item of items) {
    const last = groups.at(-1);
    if (last?.group === item.group) last.items.push(item);
    else groups.push({ group: item.group, items: [item] });
  }
  return groups;
}

/** What the server is asked for: nothing for an empty query or a single character (too many matches to help). */
export function searchTerm(query: string): string | null {
  const term = query.trim();
  return term.length >= 2 ? term : null;
}

/** The option after (or before) the active one, wrapping around; the first when none is active. */
export function moveActive(items: PaletteItem[], activeId: string | null, step: 1 | -1): string | null {
  if (items.length === 0) return null;
  const at = items.findIndex((i) => i.id === activeId);
  if (at === -1) return items[step === 1 ? 0 : items.length - 1]!.id;
  return items[(at + step + items.length) % items.length]!.id;
}

/** Whether a key press opens the palette: Ctrl-K, or ⌘-K on a Mac. */
export const opensPalette = (e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>) =>
  e.key.toLowerCase() === 'k' && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;

const MAX_SLUG = 60;

/**
 * `Trial users (EU)` → `trial-users-eu`: lower-case ASCII letters and digits joined by dashes, safe
 * as a key and as a file name; `fallback` where nothing of the name remains.
 */
export function slugify(name: string, fallback = 'segment'): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/, '');
  return slug || fallback;
}

/** `base`, or `base-2`, `base-3`… : the first one not in `taken`. */
export function uniqueSlug(base: string, taken: string[]): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

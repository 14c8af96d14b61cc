import { z } from 'zod';

/**
 * The event kinds a webhook subscribes to: an event name (`email.bounced`, `signed_up`), a prefix
 * ending in `.*` (`email.*`, `segment.*`, `contact.*`), or `*` for every event.
 */
export const eventPatternSchema = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^(\*|[^*\s]+(\.\*)?)$/, 'Use an event name, a prefix ending in .* such as email.*, or *');

export function eventMatches(patterns: string[], name: string): boolean {
  return patterns.some((p) => p === '*' || p === name || (p.endsWith('.*') && name.startsWith(p.slice(0, -1))));
}

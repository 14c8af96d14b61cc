import { z } from 'zod';

/** Addresses are compared and stored lower-cased and trimmed, so one person is one contact. */
export const emailSchema = z.string().trim().toLowerCase().max(320).email();

export function normalizeEmail(raw: string): string | null {
  const parsed = emailSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

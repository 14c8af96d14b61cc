/** The Keys page's rules: what a new key's form may hold, and the choices it offers. */
import type { ApiKey } from '../../../../src/api.js';
import type { Scope } from '../../../../src/domain/api-keys.js';

export const MAX_KEY_NAME = 100;

export interface KeyDraft {
  name: string;
  scopes: readonly Scope[];
  /** Days until it expires, as the select's value; '' for never. */
  expiresInDays: string;
}

export const EMPTY_DRAFT: KeyDraft = { name: '', scopes: [], expiresInDays: '' };

export const EXPIRY_OPTIONS = [
  { value: '', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
] as const;

export const OVERLAP_OPTIONS = [
  { value: '0', label: 'Stop it at once' },
  { value: '60', label: 'Keep it working for 1 hour' },
  { value: '1440', label: 'Keep it working for 24 hours' },
  { value: '10080', label: 'Keep it working for 7 days' },
] as const;

/** What is wrong with each field of the draft, by field; empty when it may be sent. */
export function keyDraftProblems(draft: KeyDraft): { name?: string; scopes?: string } {
  const name = draft.name.trim();
  return {
    ...(name ? {} : { name: 'Name the key, after what will use it.' }),
    ...(name.length > MAX_KEY_NAME ? { name: `At most ${MAX_KEY_NAME} characters.` } : {}),
    ...(draft.scopes.length === 0 ? { scopes: 'Choose at least one thing the key may do.' } : {}),
  };
}

/** The POST /api-keys body of a draft, its expiry counted from `now`. */
export function keyBody(draft: KeyDraft, now: Date) {
  const days = Number(draft.expiresInDays);
  return {
    name: draft.name.trim(),
    scopes: [...draft.scopes],
    expiresAt: days > 0 ? new Date(now.getTime() + days * 86_400_000).toISOString() : null,
  };
}

/** The draft with `scope` chosen or not, in the order the scopes are offered. */
export function toggleScope(draft: KeyDraft, scope: Scope, on: boolean, order: readonly Scope[]): KeyDraft {
  const chosen = new Set(draft.scopes);
  if (on) chosen.add(scope);
  else chosen.delete(scope);
  return { ...draft, scopes: order.filter((s) => chosen.has(s)) };
}

export const STATUS_LABEL: Record<ApiKey['status'], string> = {
  active: 'Active',
  expired: 'Expired',
  revoked: 'Revoked',
};

/** Who made the key, in words. */
export function creatorLabel(key: Pick<ApiKey, 'createdBy'>): string {
  const { kind, label } = key.createdBy;
  if (kind === 'user') return label ?? 'a former member';
  if (kind === 'key') return label ? `the key “${label}”` : 'a key';
  return 'the secret key';
}

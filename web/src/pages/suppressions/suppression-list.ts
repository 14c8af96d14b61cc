/**
 * The suppression list keeps its filter and page in the URL (`?reason=bounce&page=3`); defaults are
 * left out, so the plain list has a plain URL.
 */
import type { SuppressionReason } from '../../../../src/api.js';

export const REASONS = ['bounce', 'complaint', 'manual'] as const satisfies readonly SuppressionReason[];

export const REASON_LABELS: Record<SuppressionReason, string> = {
  bounce: 'Hard bounce',
  complaint: 'Spam complaint',
  manual: 'Added by hand',
};

export interface SuppressionListState {
  reason: SuppressionReason | null;
  page: number;
}

export const FIRST_SUPPRESSIONS: SuppressionListState = { reason: null, page: 1 };

const isReason = (v: string | null): v is SuppressionReason => v !== null && (REASONS as readonly string[]).includes(v);

export function parseSuppressionList(queryString: string): SuppressionListState {
  const params = new URLSearchParams(queryString);
  const reason = params.get('reason');
  const page = Number(params.get('page'));
  return {
    reason: isReason(reason) ? reason : null,
    page: Number.isSafeInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1,
  };
}

export function suppressionListToQuery(state: SuppressionListState): string {
  const params = new URLSearchParams();
  if (state.reason) params.set('reason', state.reason);
  if (state.page > 1) params.set('page', String(state.page));
  return params.toString();
}

/** What `GET /suppressions` is asked for this state. */
export function suppressionsApiQuery(state: SuppressionListState, pageSize: number) {
  return { page: state.page, pageSize, ...(state.reason ? { reason: state.reason } : {}) };
}

export const MAX_DETAIL = 1000;

/** A quick check of an address before asking the server, which has the last word. */
export function addressProblem(value: string): string | null {
  const email = value.trim();
  if (!email) return 'Enter an email address.';
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return 'Enter a whole address, such as ada@example.com.';
  return null;
}

/** The body of `POST /suppressions`: the detail left out when empty. */
export function addSuppressionBody(email: string, detail: string): { email: string; detail?: string } {
  const note = detail.trim();
  return { email: email.trim(), ...(note ? { detail: note } : {}) };
}

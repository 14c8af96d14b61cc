/**
 * A webhook's deliveries page keeps its filter and page in the URL (`?status=failed&page=2`), so a
 * view of failures can be reloaded and shared. Defaults are left out of the URL.
 */
import type { WebhookDelivery, WebhookDeliveryStatus } from '../../../../src/api.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const satisfies readonly WebhookDeliveryStatus[];

export const STATUS_LABELS: Record<WebhookDeliveryStatus, string> = {
  pending: 'Retrying',
  delivered: 'Delivered',
  failed: 'Failed',
};

export const STATUS_TONE: Record<WebhookDeliveryStatus, 'ok' | 'pending' | 'failed'> = {
  pending: 'pending',
  delivered: 'ok',
  failed: 'failed',
};

export interface DeliveryListState {
  status: WebhookDeliveryStatus | null;
  page: number;
}

export const FIRST_DELIVERIES: DeliveryListState = { status: null, page: 1 };

const isStatus = (v: string | null): v is WebhookDeliveryStatus =>
  v !== null && (DELIVERY_STATUSES as readonly string[]).includes(v);

/** A page number from the URL: a whole number from 1, else 1. */
export function pageFromQuery(raw: string | null): number {
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
}

export function parseDeliveryList(queryString: string): DeliveryListState {
  const params = new URLSearchParams(queryString);
  const status = params.get('status');
  return { status: isStatus(status) ? status : null, page: pageFromQuery(params.get('page')) };
}

export function deliveryListToQuery(state: DeliveryListState): string {
  const params = new URLSearchParams();
  if (state.status) params.set('status', state.status);
  if (state.page > 1) params.set('page', String(state.page));
  return params.toString();
}

/** What `GET /webhooks/{id}/deliveries` is asked for this state. */
export function deliveriesApiQuery(state: DeliveryListState, pageSize: number) {
  return { page: state.page, pageSize, ...(state.status ? { status: state.status } : {}) };
}

/**
 * What the receiver answered, in words: its status code when it answered, the error otherwise
 * (the API keeps the error, not the response body).
 */
export function responseSummary(d: Pick<WebhookDelivery, 'status' | 'responseStatus' | 'lastError' | 'attempts'>) {
  if (d.attempts === 0) return 'Not attempted yet';
  const code = d.responseStatus === null ? null : `HTTP ${d.responseStatus}`;
  if (d.status === 'delivered') return code ?? 'Delivered';
  if (code && d.lastError)
    return d.lastError.includes(String(d.responseStatus)) ? d.lastError : `${code}: ${d.lastError}`;
  return code ?? d.lastError ?? 'No answer';
}

/** Whether the list should be asked again soon: some delivery on it is still being retried. */
export const hasPending = (deliveries: readonly Pick<WebhookDelivery, 'status'>[]) =>
  deliveries.some((d) => d.status === 'pending');

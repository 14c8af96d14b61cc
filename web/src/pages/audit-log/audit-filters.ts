/**
 * The audit log's state in the URL: `?actor=user:…&action=contact.updated&targetType=contact&targetId=…
 * &from=2026-01-01&to=2026-01-31&cursor=…`. Dates are whole days in the browser's time zone; `to`
 * includes its day. Defaults are left out so the whole log has a clean URL.
 */

export interface AuditFilters {
  actor: string | null;
  action: string | null;
  targetType: string | null;
  targetId: string | null;
  from: string | null;
  to: string | null;
  cursor: string | null;
}

export const ALL_ENTRIES: AuditFilters = {
  actor: null,
  action: null,
  targetType: null,
  targetId: null,
  from: null,
  to: null,
  cursor: null,
};

const KEYS = ['actor', 'action', 'targetType', 'targetId', 'from', 'to', 'cursor'] as const;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const ACTOR = /^(user:[0-9a-f-]{36}|key:[0-9a-f-]{36}|secret-key|system|anonymous)$/i;
const ACTION = /^[a-z_]+\.[a-z_]+$/;
const TYPE = /^[a-z_]+$/;

export function parseAuditFilters(queryString: string): AuditFilters {
  const p = new URLSearchParams(queryString);
  const get = (k: string, valid: RegExp) => {
    const v = p.get(k)?.trim();
    return v && valid.test(v) ? v : null;
  };
  const targetType = get('targetType', TYPE);
  return {
    actor: get('actor', ACTOR),
    action: get('action', ACTION),
    targetType,
    targetId: targetType ? p.get('targetId')?.trim() || null : null,
    from: get('from', DAY),
    to: get('to', DAY),
    cursor: p.get('cursor') || null,
  };
}

export function auditFiltersToQuery(f: AuditFilters): string {
  const params = new URLSearchParams();
  for (const k of KEYS) if (f[k]) params.set(k, f[k]!);
  return params.toString();
}

/** The start of a day in the browser's time zone, as the API takes it. */
const startOfDay = (day: string, plusDays = 0) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d! + plusDays).toISOString();
};

/** What `GET /audit-log` is asked for. */
export function auditApiQuery(f: AuditFilters, limit: number): Record<string, string | number> {
  return {
    limit,
    ...(f.actor ? { actor: f.actor } : {}),
    ...(f.action ? { action: f.action } : {}),
    ...(f.targetType ? { targetType: f.targetType } : {}),
    ...(f.targetType && f.targetId ? { targetId: f.targetId } : {}),
    ...(f.from ? { from: startOfDay(f.from) } : {}),
    ...(f.to ? { to: startOfDay(f.to, 1) } : {}),
    ...(f.cursor ? { cursor: f.cursor } : {}),
  };
}

export const isNarrowed = (f: AuditFilters) => KEYS.some((k) => k !== 'cursor' && f[k] !== null);

/** A new filter starts again from page one. */
export function withCriteria(f: AuditFilters, change: Partial<Omit<AuditFilters, 'cursor'>>) {
  return { filters: { ...f, ...change, cursor: null }, trail: [] };
}

/** The page of the dashboard a target has, if any. */
export function targetPath(type: string, id: string | null): string | null {
  const one = (base: string) => (id ? `${base}/${encodeURIComponent(id)}` : base);
  switch (type) {
    case 'contact':
      return one('/contacts');
    case 'segment':
      return one('/segments');
    case 'template':
      return one('/templates');
    case 'campaign':
      return one('/campaigns');
    case 'workflow':
      return one('/workflows');
    case 'webhook':
      return one('/webhooks');
    case 'domain':
      return '/domains';
    case 'api_key':
      return '/api-keys';
    case 'member':
    case 'invitation':
      return '/members';
    case 'suppression':
      return '/suppressions';
    case 'delivery_settings':
      return '/delivery';
    case 'project':
    case 'tracking_settings':
    case 'campaign_settings':
      return '/settings';
    case 'contact_job':
    case 'contact_field':
      return '/contacts';
    case 'event_name':
      return '/events';
    default:
      return null;
  }
}

export const TARGET_TYPES: readonly { value: string; label: string }[] = [
  { value: 'contact', label: 'Contacts' },
  { value: 'segment', label: 'Segments' },
  { value: 'template', label: 'Templates' },
  { value: 'campaign', label: 'Campaigns' },
  { value: 'workflow', label: 'Workflows' },
  { value: 'webhook', label: 'Webhooks' },
  { value: 'domain', label: 'Domains' },
  { value: 'api_key', label: 'API keys' },
  { value: 'member', label: 'Members' },
  { value: 'invitation', label: 'Invitations' },
  { value: 'suppression', label: 'Suppressions' },
  { value: 'project', label: 'Project' },
  { value: 'delivery_settings', label: 'Delivery settings' },
  { value: 'tracking_settings', label: 'Tracking settings' },
  { value: 'campaign_settings', label: 'Campaign settings' },
];

/** `contact.updated` → "Contact updated"; `api_key.created` → "API key created". */
export function actionLabel(action: string): string {
  const [target = '', verb = ''] = action.split('.');
  const noun = target === 'api_key' ? 'API key' : target.replace(/_/g, ' ');
  const text = `${noun} ${verb.replace(/_/g, ' ')}`.trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The summary of a change in a line: the fields, and values before → after. */
export function changesText(changes: Record<string, unknown> | null): string {
  if (!changes) return '';
  const parts: string[] = [];
  const values = (changes.values ?? {}) as Record<string, [unknown, unknown]>;
  const fields = Array.isArray(changes.fields) ? (changes.fields as string[]) : [];
  for (const field of fields) {
    const pair = values[field];
    parts.push(pair ? `${field}: ${String(pair[0])} → ${String(pair[1])}` : field);
  }
  for (const [field, pair] of Object.entries(values))
    if (!fields.includes(field)) parts.push(`${field}: ${String(pair[0])} → ${String(pair[1])}`);
  for (const [key, value] of Object.entries(changes)) {
    if (key === 'fields' || key === 'values') continue;
    parts.push(`${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`);
  }
  return parts.join('; ');
}

import { createHash, randomBytes } from 'node:crypto';

/**
 * NOTIFYed on any change to a project's state or to any of its keys: every process forgets what
 * its keys resolved to.
 */
export const KEYS_CHANGED = 'projects_changed';

/** The project's pair (`pk_`, `sk_`) and the named keys bound to scopes (`rk_`, "restricted"). */
export type KeyKind = 'public' | 'secret' | 'scoped';

const PREFIX: Record<KeyKind, string> = { public: 'pk_', secret: 'sk_', scoped: 'rk_' };

/** 256 random bits after the prefix. */
export function generateKey(kind: KeyKind): string {
  return PREFIX[kind] + randomBytes(32).toString('base64url');
}

export function keyKindOf(key: string): KeyKind | null {
  for (const [kind, prefix] of Object.entries(PREFIX)) if (key.startsWith(prefix)) return kind as KeyKind;
  return null;
}

/** Keys carry enough entropy that a fast hash is safe; a slow one would tax every request. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What a listed key shows of itself: its prefix and last four characters, enough to tell keys apart. */
export const keyHint = (key: string): string => `${key.slice(0, 3)}…${key.slice(-4)}`;

/** What a named key may be given; every route of the API needs exactly one of them. */
export const SCOPES = [
  'send',
  'track',
  'contacts:read',
  'contacts:write',
  'campaigns',
  'workflows',
  'templates',
  'analytics',
  'admin',
] as const;

export type Scope = (typeof SCOPES)[number];

/** What each scope opens, in the words the Keys page and the docs use. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  send: 'Send email (POST /v1/send) and verify addresses',
  track: 'Track events (POST /v1/track, /events/track)',
  'contacts:read': 'Read contacts, their events, segments and suppressions',
  'contacts:write': 'Change contacts, events, segments and suppressions, and import',
  campaigns: 'Campaigns and their settings, reports and sends',
  workflows: 'Workflows and their executions',
  templates: 'Templates and image uploads',
  analytics: 'Activity, analytics, sent emails and inbound mail',
  admin: 'Domains, webhooks, delivery settings and API keys',
};

/** A route's scope: one for the route, or one for reading (GET, HEAD) and one for the rest. */
export type RouteScope = Scope | { read: Scope; write: Scope };

export function scopeOfRoute(scope: RouteScope, method: string): Scope {
  if (typeof scope === 'string') return scope;
  return method === 'GET' || method === 'HEAD' ? scope.read : scope.write;
}

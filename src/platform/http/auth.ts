import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { type RouteScope, type Scope, scopeOfRoute } from '../../domain/api-keys.js';
import { isUuid } from '../../domain/formats.js';
import { neededRole, type Role, roleAtLeast } from '../../domain/roles.js';
import { AppError } from './errors.js';

export type KeyRequirement = 'public' | 'secret' | 'none';

export interface RequestProject {
  id: string;
  name: string;
  /** Which of the project's keys the request came with. */
  keyKind: 'public' | 'secret';
  /** The signed-in user's role in the project; null for a request with an API key. */
  role: Role | null;
  /** The signed-in user; null for a request with an API key. */
  userId: string | null;
  /** A named key's scopes; null for the project's pair and for signed-in users, who may do everything their role allows. */
  scopes: readonly Scope[] | null;
  /** Who is asking, as a key's creator is recorded: `user:<id>`, `key:<id>` (a named key) or `secret-key`. */
  actor: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which API key the route accepts; every route takes the secret key unless it says otherwise. */
    auth?: KeyRequirement;
    /**
     * The least role a signed-in user needs in the project for this route. API keys are not
     * members: a secret key acts as the project itself and passes (docs/decisions.md, ## Accounts).
     */
    role?: Role;
    /**
     * What a named API key needs among its scopes to call the route. Every route that takes a key
     * has one (checked when the app is ready); `any` lets every key in, and the route itself bounds
     * what each may do (the MCP endpoint offers a key the tools of its scopes).
     */
    scope?: RouteScope | 'any';
  }
  interface FastifyRequest {
    project: RequestProject | null;
  }
}

/** The project an API key belongs to. */
export interface KeyOwner {
  id: string;
  name: string;
  disabled: boolean;
  keyKind: 'public' | 'secret';
  /** Set when a signed-in user's session found the project: their role in it. */
  role?: Role;
  /** Set when a signed-in user's session found the project: who they are. */
  userId?: string;
  /** Set for a named key: what it is and until when it works. */
  scoped?: ScopedKey;
}

export interface ScopedKey {
  id: string;
  scopes: readonly Scope[];
  /** When it stops working: its expiry, or the end of the overlap when it is the secret a rotation replaced. */
  validUntil: Date | null;
}

/** Finds the project of an API key; `clear` forgets what it remembered (a project's keys or state changed). */
export interface KeyResolver {
  resolve(key: string): Promise<KeyOwner | null>;
  clear(): void;
  /** Notes that a named key was used, from `ip` (recorded at most once a minute per key). */
  used(keyId: string, ip: string): void;
}

/**
 * Finds the project a signed-in dashboard user asks for: the session cookie's token and the
 * `X-Project-Id` header. Null when the session is not valid or the project is not theirs.
 */
export interface SessionResolver {
  /** The cookie that carries the session token. */
  cookie: string;
  /** `ip`: where the request came from, which the session records as last seen. */
  resolve(token: string, projectId: string, ip: string): Promise<KeyOwner | null>;
}

const article = (role: Role) => (role === 'member' ? 'a member' : `an ${role}`);

/** 403 for a signed-in user whose role in the project is too weak; says which role it takes. */
export const forbiddenRole = (needed: Role, role: Role) =>
  new AppError(403, 'FORBIDDEN_ROLE', `This needs ${neededRole(needed)} in this project; you are ${article(role)}`, {
    details: { neededRole: needed, role },
    suggestion: `Ask ${needed === 'owner' ? 'an owner' : 'an owner or an admin'} to do it, or to change your role.`,
  });

const invalidKey = () => new AppError(401, 'INVALID_API_KEY', 'Missing, invalid or wrong kind of API key');

const missingScope = (scope: Scope, scopes: readonly Scope[]) =>
  new AppError(403, 'MISSING_SCOPE', `This API key lacks the scope ${scope}`, {
    details: { scope, scopes },
    suggestion: 'Use a key with this scope, or add it to this key on the dashboard’s API keys page.',
  });

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * The project of a dashboard request. A cookie goes with every request to this host, including
 * forms and links on other sites; a custom header does not (a cross-site page cannot set one
 * without a CORS preflight, which this service never grants), so only a request that names its
 * project in `X-Project-Id` is taken as the user's own.
 */
async function sessionProject(request: FastifyRequest, sessions: SessionResolver): Promise<KeyOwner | null> {
  const token = request.cookies?.[sessions.cookie];
  const projectId = request.headers['x-project-id'];
  if (!token) return null;
  if (typeof projectId !== 'string' || !isUuid(projectId)) {
    throw new AppError(401, 'INVALID_API_KEY', 'A signed-in request names its project in the X-Project-Id header', {
      suggestion: 'Send an API key in the Authorization header, or the project id in X-Project-Id.',
    });
  }
  return sessions.resolve(token, projectId, request.ip);
}

/**
 * Derives the project before anything else runs, per route's `config.auth`: from the API key, or
 * from a signed-in user's session and the project they chose, which counts as the secret key when
 * the user's role is at least the route's `config.role`. A named key passes where its scopes
 * include the route's `config.scope`, whichever key the route otherwise takes.
 */
export function registerAuth(
  app: FastifyInstance,
  keys: KeyResolver,
  sessions: SessionResolver,
  now: () => Date = () => new Date(),
): void {
  app.decorateRequest('project', null);
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  // Checked once every plugin has given its routes their scopes, so a route without one cannot start.
  app.addHook('onReady', async () => {
    const unscoped = routes.filter((r) => (r.config?.auth ?? 'secret') !== 'none' && !r.config?.scope);
    if (unscoped.length > 0)
      throw new Error(`Routes without a scope: ${unscoped.map((r) => `${r.method} ${r.url}`).join(', ')}`);
  });
  app.addHook('onRequest', async (request) => {
    // Unknown routes have no config and answer 404 whatever the key.
    const config = request.routeOptions.config;
    const required = request.routeOptions.url ? (config?.auth ?? 'secret') : 'none';
    if (required === 'none') return;
    const token = bearerToken(request);
    if (token !== null && token.length > 200) throw invalidKey();
    const project = token ? await keys.resolve(token) : await sessionProject(request, sessions);
    if (!project) throw invalidKey();
    const { scoped } = project;
    if (scoped) {
      if (scoped.validUntil && scoped.validUntil <= now()) throw invalidKey();
      const scope = config?.scope;
      if (scope && scope !== 'any') {
        const needed = scopeOfRoute(scope, request.method);
        if (!scoped.scopes.includes(needed)) throw missingScope(needed, scoped.scopes);
      }
      keys.used(scoped.id, request.ip);
    } else if (token && project.keyKind !== required) throw invalidKey();
    if (project.disabled) throw new AppError(403, 'PROJECT_DISABLED', 'This project is disabled');
    // Checked here, once for every route, so a route states the role it needs and nothing more.
    const needed = config?.role;
    if (needed && project.role && !roleAtLeast(project.role, needed)) throw forbiddenRole(needed, project.role);
    request.project = {
      id: project.id,
      name: project.name,
      keyKind: project.keyKind,
      role: project.role ?? null,
      userId: project.userId ?? null,
      scopes: scoped?.scopes ?? null,
      actor: project.userId ? `user:${project.userId}` : scoped ? `key:${scoped.id}` : 'secret-key',
    };
  });
}

/** The project of an authenticated request; routes behind auth always have one. */
export function projectOf(request: FastifyRequest): RequestProject {
  if (!request.project) throw invalidKey();
  return request.project;
}

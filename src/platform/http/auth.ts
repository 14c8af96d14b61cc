import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

export type KeyRequirement = 'public' | 'secret' | 'none';

export interface RequestProject {
  id: string;
  name: string;
  /** Which of the project's keys the request came with. */
  keyKind: 'public' | 'secret';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which API key the route accepts; every route takes the secret key unless it says otherwise. */
    auth?: KeyRequirement;
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
}

/** Finds the project of an API key; `clear` forgets what it remembered (a project's keys or state changed). */
export interface KeyResolver {
  resolve(key: string): Promise<KeyOwner | null>;
  clear(): void;
}

const invalidKey = () => new AppError(401, 'INVALID_API_KEY', 'Missing, invalid or wrong kind of API key');

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** Derives the project from the API key before anything else runs, per route's `config.auth`. */
export function registerAuth(app: FastifyInstance, keys: KeyResolver): void {
  app.decorateRequest('project', null);
  app.addHook('onRequest', async (request) => {
    // Unknown routes have no config and answer 404 whatever the key.
    const required = request.routeOptions.url ? (request.routeOptions.config?.auth ?? 'secret') : 'none';
    if (required === 'none') return;
    const token = bearerToken(request);
    if (!token || token.length > 200) throw invalidKey();
    const project = await keys.resolve(token);
    if (!project || project.keyKind !== required) throw invalidKey();
    if (project.disabled) throw new AppError(403, 'PROJECT_DISABLED', 'This project is disabled');
    request.project = { id: project.id, name: project.name, keyKind: project.keyKind };
  });
}

/** The project of an authenticated request; routes behind auth always have one. */
export function projectOf(request: FastifyRequest): RequestProject {
  if (!request.project) throw invalidKey();
  return request.project;
}

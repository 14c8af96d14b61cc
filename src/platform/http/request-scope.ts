import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The request a piece of code runs for, if any: set before every other hook, so that code deep in
 * a service (the audit log's `record`) knows who asks and from where without every function
 * passing it on. Code that runs outside a request (jobs, engines, guardrails) finds none.
 */
const scope = new AsyncLocalStorage<FastifyRequest>();

export function registerRequestScope(app: FastifyInstance): void {
  // A callback hook, so that the rest of the request's hooks and its handler run inside `run`.
  app.addHook('onRequest', (request, _reply, done) => {
    scope.run(request, done);
  });
}

/** The request being handled, or undefined outside one. */
export function currentRequest(): FastifyRequest | undefined {
  return scope.getStore();
}

/** Where a request comes from, as the audit log and consent history keep it. */
export interface RequestOrigin {
  ip: string | null;
  /** Cut to 300 characters: it is kept in rows, and a client chooses its length. */
  userAgent: string | null;
}

/** The IP address and user agent of the request being handled; nulls outside one. */
export function requestOrigin(): RequestOrigin {
  const request = currentRequest();
  if (!request) return { ip: null, userAgent: null };
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: (Array.isArray(agent) ? agent[0] : agent)?.slice(0, 300) ?? null };
}

/** Runs `work` as no request's: for background work started during a request that outlives it. */
export function outsideRequest<T>(work: () => T): T {
  return scope.exit(work);
}

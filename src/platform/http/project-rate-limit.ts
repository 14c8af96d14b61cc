import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface RateDecision {
  allowed: boolean;
  /** Requests per window. */
  limit: number;
  retryAfterSeconds: number;
}

/** Counts one request of a project with its secret key, as an API request would be counted. */
export type ProjectRateLimit = (projectId: string) => Promise<RateDecision>;

/**
 * The API's own per-project limit, for work that arrives other than over HTTP (SMTP submission): the
 * same counters (Redis when configured, with its per-process fallback), key, limit and window as the
 * app's rate-limit plugin (src/app.ts), so a project's API calls and submitted messages share one
 * budget. The plugin's key and limit are functions of the request's project: a request that carries
 * only that is enough.
 */
export function projectRateLimit(app: FastifyInstance): ProjectRateLimit {
  const check = app.createRateLimit();
  return async (projectId) => {
    const request = {
      project: { id: projectId, name: '', keyKind: 'secret', role: null, userId: null },
      routeOptions: { config: {} },
    } as unknown as FastifyRequest;
    const r = await check(request);
    if (r.isAllowed) return { allowed: true, limit: 0, retryAfterSeconds: 0 };
    return { allowed: !r.isExceeded, limit: r.max, retryAfterSeconds: Math.max(1, r.ttlInSeconds) };
  };
}

import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { RouteScope } from '../../domain/api-keys.js';
import type { Role } from '../../domain/roles.js';
import type { AppContext } from '../context.js';
import { projectOf } from './auth.js';
import { noContent } from './envelope.js';
import { idParams } from './params.js';

/** A Fastify instance whose routes take their request and response types from Zod schemas. */
export type ZodApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * A module's routes as a plugin: typed by their Zod schemas and listed under `tag` in the API
 * docs (a route may name other tags itself), so each route states only what is its own. `role`
 * is the least role a signed-in user needs for every route of the module (`config.role`), and
 * `scope` what a named API key needs (`config.scope`), unless a route names its own.
 */
export function moduleRoutes(
  tag: string,
  register: (app: ZodApp, ctx: AppContext) => void | Promise<void>,
  options: { role?: Role; scope: RouteScope | 'any' },
) {
  return async (fastify: FastifyInstance, { ctx }: { ctx: AppContext }) => {
    fastify.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, tags: route.schema?.tags ?? [tag] };
      route.config = {
        ...route.config,
        scope: route.config?.scope ?? options.scope,
        ...(options.role ? { role: route.config?.role ?? options.role } : {}),
      };
    });
    await register(fastify.withTypeProvider<ZodTypeProvider>(), ctx);
  };
}

type ById = (ctx: AppContext, projectId: string, id: string) => Promise<unknown>;

/** What `<path>/:id` of a module takes and answers; GET answers `detail` where it is fuller. */
export interface ResourceSchemas<Body> {
  resource: z.ZodTypeAny;
  detail?: z.ZodTypeAny;
  update: { method: 'PATCH' | 'PUT'; body: z.ZodType<Body, z.ZodTypeDef, unknown> };
}

/** The module's service functions behind `<path>/:id`. */
export interface ResourceServices<Body> {
  get: ById;
  update: (ctx: AppContext, projectId: string, id: string, body: Body) => Promise<unknown>;
  delete: ById;
}

/**
 * GET, PATCH (or PUT) and DELETE of one resource of the caller's project at `<path>/:id`, the same
 * in every module: the service answers 404 for a resource the project does not have, DELETE 204.
 */
export function resourceById<Body>(
  app: ZodApp,
  ctx: AppContext,
  path: string,
  schemas: ResourceSchemas<Body>,
  services: ResourceServices<Body>,
) {
  const url = `${path}/:id`;
  const id = (req: FastifyRequest) => (req.params as z.infer<typeof idParams>).id;
  const { resource, detail = resource, update } = schemas;
  app.get(url, { schema: { params: idParams, response: { 200: detail } } }, (req) =>
    services.get(ctx, projectOf(req).id, id(req)),
  );
  app.route({
    method: update.method,
    url,
    schema: { params: idParams, body: update.body, response: { 200: resource } },
    handler: (req) => services.update(ctx, projectOf(req).id, id(req), req.body as Body),
  });
  app.delete(url, { schema: { params: idParams } }, (req, reply) =>
    noContent(reply, services.delete(ctx, projectOf(req).id, id(req))),
  );
}

/**
 * GET and PATCH of a project's settings at `path`: every member reads them, admins change them,
 * since they shape the whole project's sending as its domains do.
 */
export function projectSettings<Patch>(
  app: ZodApp,
  ctx: AppContext,
  path: string,
  schemas: { settings: z.ZodTypeAny; patch: z.ZodType<Patch, z.ZodTypeDef, unknown> },
  services: {
    get: (ctx: AppContext, projectId: string) => Promise<unknown>;
    update: (ctx: AppContext, projectId: string, patch: Patch) => Promise<unknown>;
  },
) {
  app.get(path, { schema: { response: { 200: schemas.settings } } }, (req) => services.get(ctx, projectOf(req).id));
  app.route({
    method: 'PATCH',
    url: path,
    config: { role: 'admin' },
    schema: { body: schemas.patch, response: { 200: schemas.settings } },
    handler: (req) => services.update(ctx, projectOf(req).id, req.body as Patch),
  });
}

import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config, Role } from './config.js';
import { KEYS_CHANGED } from './domain/api-keys.js';
import { LinkSigner } from './domain/signed-links.js';
import { setupToken } from './modules/accounts/setup.js';
import { registerCampaignUsage } from './modules/campaigns/service.js';
import { type InboundSmtp, startInboundSmtp } from './modules/feedback/inbound-smtp.js';
import { ensureDefaultProject, keyResolver, type ProjectWithKeys } from './modules/projects/service.js';
import { registerSegmentUsage } from './modules/segments/service.js';
import { type SubmissionListener, startSubmission } from './modules/submission/listener.js';
import { registerWorkflowUsage } from './modules/workflows/service.js';
import { type Clock, systemClock } from './platform/clock.js';
import type { AppContext } from './platform/context.js';
import { openDatabase } from './platform/db/client.js';
import { Dns } from './platform/dns.js';
import { EventBus } from './platform/event-bus.js';
import { projectRateLimit } from './platform/http/project-rate-limit.js';
import { type MetricsListener, startMetricsListener } from './platform/metrics/listener.js';
import { Metrics } from './platform/metrics/registry.js';
import { NotifiedCaches } from './platform/notified-cache.js';
import { ERASURE_SALT, instanceSecret } from './platform/secrets.js';
import { Throttle } from './platform/throttle.js';
import { UntrustedPool } from './platform/untrusted/pool.js';
import { TemplateRenderer } from './platform/untrusted/templates.js';
import { UsageRegistry } from './platform/usage.js';
import { startWorker } from './worker.js';

export interface RunningService {
  ctx: AppContext;
  app?: FastifyInstance;
  /** The address the API listens on, when this process serves it. */
  url?: string;
  /** Where this process's `GET /metrics` answers, when `METRICS_PORT` is set. */
  metricsUrl?: string;
  /** The port of the inbound SMTP listener, when this process runs one. */
  inboundSmtpPort?: number;
  /** The ports of the SMTP submission listener (STARTTLS, implicit TLS), when this process runs it. */
  submissionPorts?: { port?: number; smtpsPort?: number };
  defaultProject: ProjectWithKeys | null;
  /** While the instance has no user, the token that lets the dashboard create its owner. */
  setupToken: string | null;
  stop(): Promise<void>;
}

export async function createContext(
  config: Config,
  log: Logger,
  clock: Clock = systemClock,
  role: Role = 'all',
): Promise<AppContext> {
  const database = await openDatabase({
    ...config,
    timeouts: config.databaseTimeouts,
    log,
    onNotice: (message) => log.info(message),
  });
  await database.migrate();
  const caches = new NotifiedCaches(database);
  // Listening before the first request: a key disabled meanwhile is never served from the cache.
  await caches.of(KEYS_CHANGED).listen();
  const usage = new UsageRegistry();
  registerSegmentUsage(usage);
  registerCampaignUsage(usage);
  registerWorkflowUsage(usage);
  // A worker process keeps no idle thread: nothing it does waits on a client (RSS matters there).
  const untrusted = new UntrustedPool({ log, warmThreads: role === 'worker' ? 0 : 1 });
  return {
    config,
    database,
    db: database.db,
    clock,
    bus: new EventBus(),
    usage,
    keys: keyResolver(database.db, caches, () => clock.now()),
    caches,
    deliveryWake: new Throttle(100),
    log,
    dns: new Dns(config.dnsServers),
    links: new LinkSigner(await instanceSecret(database.db, 'link-signing-key')),
    erasureSalt: await instanceSecret(database.db, ERASURE_SALT),
    untrusted,
    templates: new TemplateRenderer(untrusted, { inlineFirst: role === 'worker' }),
  };
}

/** Starts the API, the worker or both on one database; `stop` drains and closes everything. */
export async function startService(
  config: Config,
  role: Role,
  options: { log?: Logger; clock?: Clock } = {},
): Promise<RunningService> {
  const log = options.log ?? pino({ level: config.logLevel });
  const ctx = await createContext(config, log, options.clock, role);
  const defaultProject = await ensureDefaultProject(ctx.db, ctx.clock.now());
  const metrics = config.metrics ? new Metrics({ role, database: ctx.database, clock: ctx.clock, log }) : undefined;
  // Opened by every role, before anything else runs: a worker serves no other HTTP.
  const metricsListener: MetricsListener | undefined =
    metrics && (await startMetricsListener(metrics, config.metrics!, log));

  // Before listening: the caller prints it, and whoever sees the service answer may look for it.
  const ownerSetup = role === 'worker' ? null : await setupToken(ctx.db);
  const worker = role === 'serve' ? undefined : await startWorker(ctx, metrics);
  let app: FastifyInstance | undefined;
  let url: string | undefined;
  let inbound: InboundSmtp | undefined;
  let submission: SubmissionListener | undefined;
  if (role !== 'worker') {
    app = await buildApp(ctx, { metrics });
    url = await app.listen({ port: config.port, host: config.host });
    if (!config.publicUrl) config.publicUrl = url;
    if (config.inboundSmtpPort !== undefined)
      inbound = await startInboundSmtp(ctx, config.inboundSmtpPort, config.host);
    // Submitted messages count against the same per-project limit as the API's requests.
    if (config.submission) submission = await startSubmission(ctx, config.submission, projectRateLimit(app));
  }
  return {
    ctx,
    app,
    url,
    metricsUrl: metricsListener?.url,
    inboundSmtpPort: inbound?.port,
    submissionPorts: submission && { port: submission.port, smtpsPort: submission.smtpsPort },
    defaultProject,
    setupToken: ownerSetup,
    async stop() {
      await metricsListener?.close();
      await submission?.close();
      await inbound?.close();
      await app?.close();
      await worker?.stop();
      await ctx.untrusted.close();
      await ctx.database.close();
    },
  };
}

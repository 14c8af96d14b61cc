import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config, Role } from './config.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { AppContext } from './platform/context.js';
import { openDatabase } from './platform/db/client.js';
import { Dns } from './platform/dns.js';
import { instanceSecret } from './platform/secrets.js';
import { LinkSigner } from './domain/signed-links.js';
import { EventBus } from './platform/event-bus.js';
import { EventDispatcher } from './platform/event-dispatcher.js';
import { JobRunner } from './platform/queue.js';
import { startMetricsListener, type MetricsListener } from './platform/metrics/listener.js';
import { Metrics } from './platform/metrics/registry.js';
import { instrumentTransport } from './platform/metrics/relay.js';
import { UsageRegistry } from './platform/usage.js';
import { UntrustedPool } from './platform/untrusted/pool.js';
import { TemplateRenderer } from './platform/untrusted/templates.js';
import { registerJobs } from './jobs.js';
import { DeliveryEngine } from './modules/emails/delivery.js';
import { startInboundSmtp, type InboundSmtp } from './modules/feedback/inbound-smtp.js';
import { subscribeWebhookDeliveries } from './modules/webhooks/delivery.js';
import { subscribeActivityRollup } from './modules/activity/rollup.js';
import { outboxTransport, smtpTransport } from './platform/mail/transport.js';
import { ProjectKeyCache } from './modules/projects/key-cache.js';
import { ensureDefaultProject, type ProjectWithKeys } from './modules/projects/service.js';
import { registerSegmentUsage } from './modules/segments/service.js';
import { registerCampaignUsage } from './modules/campaigns/service.js';
import { registerWorkflowUsage } from './modules/workflows/service.js';
import { subscribeWorkflowTriggers } from './modules/workflows/triggers.js';
import { WorkflowEngine } from './modules/workflows/engine.js';

/** Executions claimed per round by a worker's workflow engine. */
const WORKFLOW_BATCH = 200;
/** Longer than a webhook step's timeout (10 s), short enough that a crashed worker's executions resume within a minute. */
const WORKFLOW_LEASE_MS = 60_000;

export interface RunningService {
  ctx: AppContext;
  app?: FastifyInstance;
  /** The address the API listens on, when this process serves it. */
  url?: string;
  /** Where this process's `GET /metrics` answers, when `METRICS_PORT` is set. */
  metricsUrl?: string;
  /** The port of the inbound SMTP listener, when this process runs one. */
  inboundSmtpPort?: number;
  defaultProject: ProjectWithKeys | null;
  stop(): Promise<void>;
}

export async function createContext(config: Config, log: Logger, clock: Clock = systemClock, role: Role = 'all'): Promise<AppContext> {
  const database = await openDatabase({ ...config, timeouts: config.databaseTimeouts, log, onNotice: (message) => log.info(message) });
  await database.migrate();
  const keys = new ProjectKeyCache(database);
  await keys.start();
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
    keys,
    log,
    dns: new Dns(config.dnsServers),
    links: new LinkSigner(await instanceSecret(database.db, 'link-signing-key')),
    untrusted,
    templates: new TemplateRenderer(untrusted, { inlineFirst: role === 'worker' }),
  };
}

/** Starts the API, the worker or both on one database; `stop` drains and closes everything. */
export async function startService(config: Config, role: Role, options: { log?: Logger; clock?: Clock } = {}): Promise<RunningService> {
  const log = options.log ?? pino({ level: config.logLevel });
  const ctx = await createContext(config, log, options.clock, role);
  const defaultProject = await ensureDefaultProject(ctx.db);
  const metrics = config.metrics ? new Metrics({ role, database: ctx.database, clock: ctx.clock, log }) : undefined;
  // Opened by every role, before anything else runs: a worker serves no other HTTP.
  const metricsListener: MetricsListener | undefined = metrics && (await startMetricsListener(metrics, config.metrics!, log));

  let runner: JobRunner | undefined;
  let dispatcher: EventDispatcher | undefined;
  let delivery: DeliveryEngine | undefined;
  let workflows: WorkflowEngine | undefined;
  if (role !== 'serve') {
    runner = new JobRunner(ctx.database, ctx.clock, log);
    registerJobs(runner, ctx);
    await runner.start();
    await subscribeWorkflowTriggers(ctx);
    subscribeWebhookDeliveries(ctx);
    subscribeActivityRollup(ctx);
    dispatcher = new EventDispatcher(ctx.database, ctx.bus, ctx.clock, log);
    dispatcher.start();
    const transport = config.smtpUrl
      ? smtpTransport(config.smtpUrl, { maxConnections: config.smtpMaxConnections })
      : outboxTransport(path.join(config.dataDir, 'outbox'));
    delivery = new DeliveryEngine(ctx, metrics ? instrumentTransport(transport, metrics) : transport, config.delivery);
    await delivery.start();
    workflows = new WorkflowEngine(ctx, { batch: WORKFLOW_BATCH, leaseMs: WORKFLOW_LEASE_MS });
    await workflows.start();
  }
  let app: FastifyInstance | undefined;
  let url: string | undefined;
  let inbound: InboundSmtp | undefined;
  if (role !== 'worker') {
    app = await buildApp(ctx, { metrics });
    url = await app.listen({ port: config.port, host: config.host });
    if (!config.publicUrl) config.publicUrl = url;
    if (config.inboundSmtpPort !== undefined) inbound = await startInboundSmtp(ctx, config.inboundSmtpPort, config.host);
  }
  return {
    ctx,
    app,
    url,
    metricsUrl: metricsListener?.url,
    inboundSmtpPort: inbound?.port,
    defaultProject,
    async stop() {
      await metricsListener?.close();
      await inbound?.close();
      await app?.close();
      await workflows?.stop();
      await delivery?.stop();
      await dispatcher?.stop();
      await runner?.stop();
      await ctx.untrusted.close();
      await ctx.database.close();
    },
  };
}

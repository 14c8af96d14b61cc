import path from 'node:path';
import { z } from 'zod';
import { ROLES } from './domain/roles.js';
import { type SpamdTarget, spamdTarget } from './domain/spamd-answer.js';
import { issuerProblem, parseAllowedDomains, type SsoSettings } from './domain/sso.js';
import type { DatabaseTimeouts } from './platform/db/client.js';
import type { S3Settings } from './platform/storage.js';

const hostPort = z.string().regex(/^[^\s:,]+(:\d{1,5})?$/, 'expected host or host:port');

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_URL: z.string().url().optional(),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_SESSION_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(20),
  DB_CONNECT_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(5),
  DB_STATEMENT_TIMEOUT_SECONDS: z.coerce.number().positive().max(86_400).default(30),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: z.coerce.number().positive().max(86_400).default(60),
  REDIS_URL: z.string().url().optional(),
  SMTP_URL: z.string().url().optional(),
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100).default(5),
  DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(20),
  DELIVERY_RETRY_BASE_SECONDS: z.coerce.number().positive().default(30),
  DELIVERY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(16),
  DELIVERY_RECLAIM_SECONDS: z.coerce.number().positive().max(3600).default(3),
  DELIVERY_TRANSACTIONAL_SHARE: z.coerce.number().min(0).max(0.9).default(0),
  DELIVERY_UNCONFIRMED: z.coerce.number().int().min(1).max(1000).default(2),
  WORKER_HEAP_GROWTH_PERCENT: z.coerce.number().int().min(0).max(1000).default(60),
  CAMPAIGN_MAX_COMPLAINT_RATE: z.coerce.number().min(0).max(1).default(0.003),
  CAMPAIGN_MAX_BOUNCE_RATE: z.coerce.number().min(0).max(1).default(0.05),
  CAMPAIGN_MIN_SAMPLE: z.coerce.number().int().min(0).max(1_000_000).default(200),
  CAMPAIGN_TEST_HOUR_SECONDS: z.coerce.number().positive().max(3600).default(3600),
  INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SUBMISSION_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SUBMISSION_SMTPS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SUBMISSION_HOST: z.string().min(1).optional(),
  SUBMISSION_TLS_CERT: z.string().min(1).optional(),
  SUBMISSION_TLS_KEY: z.string().min(1).optional(),
  SUBMISSION_ALLOW_INSECURE_AUTH: z.enum(['true', 'false']).default('false'),
  SNS_TRUSTED_ORIGIN: z.string().url().optional(),
  SENDGRID_WEBHOOK_PUBLIC_KEY: z.string().min(1).optional(),
  MAILGUN_WEBHOOK_SIGNING_KEY: z.string().min(1).optional(),
  POSTMARK_WEBHOOK_CREDENTIALS: z
    .string()
    .regex(/^[^:]+:.{16,}$/, 'user:password, the password at least 16 characters')
    .optional(),
  BREVO_WEBHOOK_CREDENTIALS: z
    .string()
    .regex(/^[^:]+:.{16,}$/, 'user:password, the password at least 16 characters')
    .optional(),
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ENDPOINT: z.string().url().optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_PUBLIC_URL: z.string().url().optional(),
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    )
    .pipe(z.array(hostPort)),
  SPAMD_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || isSpamdUrl(v), 'expected spamd://host[:port]'),
  SPAMD_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(10),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1000),
  RATE_LIMIT_PUBLIC_PER_MINUTE: z.coerce.number().int().min(1).default(1000),
  FORM_RATE_LIMIT_PER_IP: z.coerce.number().int().min(1).default(30),
  FORM_RATE_LIMIT_PER_FORM: z.coerce.number().int().min(1).default(600),
  TRUST_PROXY: z.string().optional(),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().positive().default(24),
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).optional(),
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).default(365),
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  EMAIL_RETENTION_DAYS: z.coerce.number().int().min(1).optional(),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(['true', 'false']).default('false'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  OIDC_ISSUER: z.string().url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_PROVIDER_NAME: z.string().trim().min(1).max(60).optional(),
  OIDC_ALLOWED_DOMAINS: z.string().optional(),
  OIDC_PROJECT: z.string().trim().min(1).optional(),
  OIDC_ROLE: z.enum(ROLES).default('member'),
  OIDC_ONLY: z.enum(['true', 'false']).default('false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Role = 'all' | 'serve' | 'worker';

export interface SubmissionConfig {
  /** Plain SMTP with STARTTLS (when `tls` is set), usually 587. */
  port?: number;
  /** Implicit TLS from the first byte, usually 465. */
  smtpsPort?: number;
  host: string;
  /** Paths of the PEM certificate (chain) and key. */
  tls?: { certFile: string; keyFile: string };
  /** AUTH is taken on a connection that is not encrypted (loopback, development). */
  allowInsecureAuth: boolean;
}

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl?: string;
  /** A direct connection for the process lock, LISTEN and migrations when `databaseUrl` is a transaction pooler. */
  databaseSessionUrl?: string;
  /** Connections each process's pool opens at most. */
  databasePoolSize: number;
  dataDir: string;
  databaseTimeouts: DatabaseTimeouts;
  redisUrl?: string;
  smtpUrl?: string;
  smtpMaxConnections: number;
  delivery: {
    concurrency: number;
    retryBaseMs: number;
    maxAttempts: number;
    reclaimAfterMs: number;
    transactionalShare: number;
    unconfirmed: number;
  };
  /** How far a `worker` process lets V8 grow its heap past the live data; 0 leaves V8's own factor (platform/heap.ts). */
  workerHeapGrowthPercent: number;
  /** The guardrails of every project that has not set its own (domain/campaign-guardrails.ts). */
  campaignGuardrails: { maxComplaintRate: number; maxBounceRate: number; minSample: number };
  /** How long an hour of an A/B test's wait lasts: shorter only to try a test out (`CAMPAIGN_TEST_HOUR_SECONDS`). */
  abTestHourMs: number;
  inboundSmtpPort?: number;
  /** SMTP submission (`SUBMISSION_SMTP_PORT`, `SUBMISSION_SMTPS_PORT`); unset when neither port is. */
  submission?: SubmissionConfig;
  /** An origin trusted, besides Amazon SNS's own hosts, for signing certificates and subscription URLs. */
  snsTrustedOrigin?: string;
  /** SendGrid's Signed Event Webhook verification key (base64 DER or PEM); /feedback/sendgrid exists only with it. */
  sendgridWebhookPublicKey?: string;
  /** Mailgun's HTTP webhook signing key; /feedback/mailgun exists only with it. */
  mailgunWebhookSigningKey?: string;
  /**
   * The basic-auth `user:password` Postmark's webhooks are set up with; /feedback/postmark exists only
   * with it, and outgoing mail then carries our email id as Postmark metadata.
   */
  postmarkWebhookCredentials?: string;
  /** The same for Brevo's transactional webhooks (/feedback/brevo), with the email id in `X-Mailin-custom`. */
  brevoWebhookCredentials?: string;
  /** Uploads go to this bucket instead of `DATA_DIR/uploads`. */
  s3?: S3Settings;
  dnsServers: string[];
  /** SpamAssassin's spamd, which scores content before it is sent; unset: the spam check says how to turn it on. */
  spamd?: { target: SpamdTarget; timeoutMs: number };
  rateLimitPerMinute: number;
  /** Requests with the public key, which is published in web pages and apps, count in a bucket of their own. */
  rateLimitPublicPerMinute: number;
  /** Signup form submissions per 10 minutes from one client address, and to one form from all addresses. */
  formRateLimit: { perIp: number; perForm: number };
  /** Which proxies' X-Forwarded-For to believe for the client address: Fastify's `trustProxy`. */
  trustProxy: boolean | string[];
  idempotencyTtlHours: number;
  /** How long events are kept in projects without a retention of their own; undefined: for ever. */
  eventRetentionDays?: number;
  /** How long audit log entries are kept, for every project of the instance. */
  auditRetentionDays: number;
  /** How long webhook deliveries are kept, at least: their months are dropped whole past it. */
  webhookDeliveryRetentionDays: number;
  /** How long emails (their rows, not only their contents) are kept, at least; undefined: for ever. */
  emailRetentionDays?: number;
  /** Whether webhooks may reach private, loopback and link-local addresses. */
  webhookAllowPrivate: boolean;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  /** Single sign-on through an OpenID Connect provider (`OIDC_*`); unset when `OIDC_ISSUER` is. */
  sso?: SsoSettings;
  /** `GET /metrics` of this process on its own listener; unset when `METRICS_PORT` is. */
  metrics?: { port: number; host: string; token?: string };
}

/** Reads the environment once; nothing else in the program looks at process.env. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const blankToUndefined = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === '' ? undefined : v]));
  const parsed = EnvSchema.safeParse(blankToUndefined);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.DATABASE_SESSION_URL && !e.DATABASE_URL)
    throw new Error(
      'Invalid configuration:\n  DATABASE_SESSION_URL: only with DATABASE_URL ' +
        '(the direct connection beside a pooled one)',
    );
  if (e.S3_BUCKET && !e.S3_PUBLIC_URL)
    throw new Error(
      'Invalid configuration:\n  S3_PUBLIC_URL: required with S3_BUCKET ' +
        '(where the uploaded files are publicly readable)',
    );
  return {
    port: e.PORT,
    host: e.HOST,
    // With PORT=0 the port is known only once listening; the service fills the URL in then.
    publicUrl: (e.PUBLIC_URL ?? (e.PORT === 0 ? '' : `http://localhost:${e.PORT}`)).replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    databaseSessionUrl: e.DATABASE_SESSION_URL,
    databasePoolSize: e.DB_POOL_SIZE,
    dataDir: path.resolve(e.DATA_DIR),
    databaseTimeouts: {
      connectMs: e.DB_CONNECT_TIMEOUT_SECONDS * 1000,
      statementMs: e.DB_STATEMENT_TIMEOUT_SECONDS * 1000,
      idleInTransactionMs: e.DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS * 1000,
    },
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    smtpMaxConnections: e.SMTP_MAX_CONNECTIONS,
    delivery: {
      concurrency: e.DELIVERY_CONCURRENCY,
      retryBaseMs: e.DELIVERY_RETRY_BASE_SECONDS * 1000,
      maxAttempts: e.DELIVERY_MAX_ATTEMPTS,
      reclaimAfterMs: e.DELIVERY_RECLAIM_SECONDS * 1000,
      transactionalShare: e.DELIVERY_TRANSACTIONAL_SHARE,
      unconfirmed: e.DELIVERY_UNCONFIRMED,
    },
    workerHeapGrowthPercent: e.WORKER_HEAP_GROWTH_PERCENT,
    campaignGuardrails: {
      maxComplaintRate: e.CAMPAIGN_MAX_COMPLAINT_RATE,
      maxBounceRate: e.CAMPAIGN_MAX_BOUNCE_RATE,
      minSample: e.CAMPAIGN_MIN_SAMPLE,
    },
    abTestHourMs: e.CAMPAIGN_TEST_HOUR_SECONDS * 1000,
    inboundSmtpPort: e.INBOUND_SMTP_PORT,
    submission: submissionConfig(e),
    snsTrustedOrigin: e.SNS_TRUSTED_ORIGIN ? new URL(e.SNS_TRUSTED_ORIGIN).origin : undefined,
    sendgridWebhookPublicKey: e.SENDGRID_WEBHOOK_PUBLIC_KEY,
    mailgunWebhookSigningKey: e.MAILGUN_WEBHOOK_SIGNING_KEY,
    postmarkWebhookCredentials: e.POSTMARK_WEBHOOK_CREDENTIALS,
    brevoWebhookCredentials: e.BREVO_WEBHOOK_CREDENTIALS,
    s3: e.S3_BUCKET
      ? {
          bucket: e.S3_BUCKET,
          region: e.S3_REGION,
          endpoint: e.S3_ENDPOINT,
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          publicUrl: e.S3_PUBLIC_URL!,
        }
      : undefined,
    dnsServers: e.DNS_SERVERS,
    spamd: e.SPAMD_URL ? { target: spamdTarget(e.SPAMD_URL), timeoutMs: e.SPAMD_TIMEOUT_SECONDS * 1000 } : undefined,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    rateLimitPublicPerMinute: e.RATE_LIMIT_PUBLIC_PER_MINUTE,
    formRateLimit: { perIp: e.FORM_RATE_LIMIT_PER_IP, perForm: e.FORM_RATE_LIMIT_PER_FORM },
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    idempotencyTtlHours: e.IDEMPOTENCY_TTL_HOURS,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    webhookDeliveryRetentionDays: e.WEBHOOK_DELIVERY_RETENTION_DAYS,
    emailRetentionDays: e.EMAIL_RETENTION_DAYS,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
    logLevel: e.LOG_LEVEL,
    sso: ssoConfig(e),
    metrics:
      e.METRICS_PORT === undefined ? undefined : { port: e.METRICS_PORT, host: e.METRICS_HOST, token: e.METRICS_TOKEN },
  };
}

const invalid = (line: string) => new Error(`Invalid configuration:\n  ${line}`);

/**
 * The submission listener's settings, or undefined without a port. A secret key must not cross the
 * network in the clear: without a certificate, AUTH needs the explicit SUBMISSION_ALLOW_INSECURE_AUTH.
 */
function submissionConfig(e: z.infer<typeof EnvSchema>): SubmissionConfig | undefined {
  if (e.SUBMISSION_SMTP_PORT === undefined && e.SUBMISSION_SMTPS_PORT === undefined) return undefined;
  if (!e.SUBMISSION_TLS_CERT !== !e.SUBMISSION_TLS_KEY)
    throw invalid('SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY: set both (the certificate and its key) or neither');
  const tls = e.SUBMISSION_TLS_CERT ? { certFile: e.SUBMISSION_TLS_CERT, keyFile: e.SUBMISSION_TLS_KEY! } : undefined;
  const allowInsecureAuth = e.SUBMISSION_ALLOW_INSECURE_AUTH === 'true';
  if (e.SUBMISSION_SMTPS_PORT !== undefined && !tls)
    throw invalid('SUBMISSION_SMTPS_PORT: needs SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY');
  if (e.SUBMISSION_SMTP_PORT !== undefined && !tls && !allowInsecureAuth)
    throw invalid(
      'SUBMISSION_SMTP_PORT: AUTH sends the secret key, so it needs TLS: set SUBMISSION_TLS_CERT and ' +
        'SUBMISSION_TLS_KEY, or SUBMISSION_ALLOW_INSECURE_AUTH=true (loopback and development only)',
    );
  return {
    port: e.SUBMISSION_SMTP_PORT,
    smtpsPort: e.SUBMISSION_SMTPS_PORT,
    host: e.SUBMISSION_HOST ?? e.HOST,
    tls,
    allowInsecureAuth,
  };
}

/** The OIDC_* settings, all of them or none: a half-configured provider stops the start. */
function ssoConfig(e: z.infer<typeof EnvSchema>): SsoSettings | undefined {
  if (!e.OIDC_ISSUER) {
    const given = { ...e, OIDC_ONLY: e.OIDC_ONLY === 'true' ? e.OIDC_ONLY : undefined };
    const stray = ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ALLOWED_DOMAINS', 'OIDC_PROJECT', 'OIDC_ONLY'].filter(
      (name) => given[name as keyof typeof given] !== undefined,
    );
    if (stray.length > 0) throw invalid(`${stray.join(', ')}: only with OIDC_ISSUER (the provider's issuer URL)`);
    return undefined;
  }
  const issuer = issuerProblem(e.OIDC_ISSUER);
  if (issuer) throw invalid(`OIDC_ISSUER: ${issuer}`);
  if (!e.OIDC_CLIENT_ID || !e.OIDC_CLIENT_SECRET)
    throw invalid(
      'OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: required with OIDC_ISSUER (the client registered at the provider)',
    );
  const allowedDomains = parseAllowedDomains(e.OIDC_ALLOWED_DOMAINS ?? '');
  if (!allowedDomains)
    throw invalid(
      'OIDC_ALLOWED_DOMAINS: required with OIDC_ISSUER: the email domains that may sign in, comma-separated ' +
        '(example.com,example.org), or * for every address the provider has verified',
    );
  return {
    issuer: e.OIDC_ISSUER,
    clientId: e.OIDC_CLIENT_ID,
    clientSecret: e.OIDC_CLIENT_SECRET,
    providerName: e.OIDC_PROVIDER_NAME ?? new URL(e.OIDC_ISSUER).hostname,
    allowedDomains,
    project: e.OIDC_PROJECT,
    role: e.OIDC_ROLE,
    ssoOnly: e.OIDC_ONLY === 'true',
  };
}

function isSpamdUrl(value: string): boolean {
  try {
    spamdTarget(value);
    return true;
  } catch {
    return false;
  }
}

/** `true`, or a comma-separated list of proxy addresses and CIDR ranges; unset trusts none. */
function parseTrustProxy(value: string | undefined): boolean | string[] {
  if (!value || value === 'false') return false;
  if (value === 'true') return true;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

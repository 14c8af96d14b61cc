import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('reads TRUST_PROXY as none, any proxy, or a list of proxy addresses', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' }).trustProxy).toEqual(['10.0.0.1', '192.168.0.0/16']);
  });

  it('needs S3_PUBLIC_URL with S3_BUCKET, and fills the S3 defaults', () => {
    expect(() => loadConfig({ S3_BUCKET: 'media' })).toThrow(/S3_PUBLIC_URL/);
    expect(loadConfig({ S3_BUCKET: 'media', S3_PUBLIC_URL: 'https://cdn.example.com' }).s3).toEqual({
      bucket: 'media',
      region: 'us-east-1',
      endpoint: undefined,
      accessKeyId: undefined,
      secretAccessKey: undefined,
      publicUrl: 'https://cdn.example.com',
    });
    expect(loadConfig({}).s3).toBeUndefined();
  });

  it('takes DATABASE_SESSION_URL only beside DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_SESSION_URL: 'postgres://db:5432/postbox' })).toThrow(/DATABASE_SESSION_URL/);
    const config = loadConfig({
      DATABASE_URL: 'postgres://pgbouncer:6432/postbox',
      DATABASE_SESSION_URL: 'postgres://db:5432/postbox',
    });
    expect(config.databaseSessionUrl).toBe('postgres://db:5432/postbox');
    expect(loadConfig({ DATABASE_URL: 'postgres://db:5432/postbox' }).databaseSessionUrl).toBeUndefined();
  });

  it('reads SPAMD_URL as spamd://host[:port] with a deadline of 10 s by default, and no check without it', () => {
    expect(loadConfig({}).spamd).toBeUndefined();
    expect(loadConfig({ SPAMD_URL: 'spamd://127.0.0.1:7830' }).spamd).toEqual({
      target: { host: '127.0.0.1', port: 7830 },
      timeoutMs: 10_000,
    });
    expect(loadConfig({ SPAMD_URL: 'spamd://spam.internal', SPAMD_TIMEOUT_SECONDS: '2.5' }).spamd).toEqual({
      target: { host: 'spam.internal', port: 783 },
      timeoutMs: 2_500,
    });
    expect(() => loadConfig({ SPAMD_URL: '127.0.0.1:783' })).toThrow(/SPAMD_URL: expected spamd:\/\/host\[:port\]/);
    expect(() => loadConfig({ SPAMD_URL: 'http://127.0.0.1:783' })).toThrow(/SPAMD_URL/);
    expect(() => loadConfig({ SPAMD_URL: 'spamd://a', SPAMD_TIMEOUT_SECONDS: '0' })).toThrow(/SPAMD_TIMEOUT_SECONDS/);
  });

  it('reads DB_POOL_SIZE as a whole number of connections, 20 by default', () => {
    expect(loadConfig({}).databasePoolSize).toBe(20);
    expect(loadConfig({ DB_POOL_SIZE: '8' }).databasePoolSize).toBe(8);
    expect(() => loadConfig({ DB_POOL_SIZE: '0' })).toThrow(/DB_POOL_SIZE/);
    expect(() => loadConfig({ DB_POOL_SIZE: 'many' })).toThrow(/DB_POOL_SIZE/);
  });

  it('reads WORKER_HEAP_GROWTH_PERCENT as a whole percentage, 60 by default, 0 for V8’s own', () => {
    expect(loadConfig({}).workerHeapGrowthPercent).toBe(60);
    expect(loadConfig({ WORKER_HEAP_GROWTH_PERCENT: '0' }).workerHeapGrowthPercent).toBe(0);
    expect(() => loadConfig({ WORKER_HEAP_GROWTH_PERCENT: '-5' })).toThrow(/WORKER_HEAP_GROWTH_PERCENT/);
    expect(() => loadConfig({ WORKER_HEAP_GROWTH_PERCENT: '2.5' })).toThrow(/WORKER_HEAP_GROWTH_PERCENT/);
  });

  it('keeps webhook deliveries 30 days by default', () => {
    expect(loadConfig({}).webhookDeliveryRetentionDays).toBe(30);
    expect(loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '90' }).webhookDeliveryRetentionDays).toBe(90);
    expect(() => loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS/);
  });

  it('keeps emails for ever unless EMAIL_RETENTION_DAYS says otherwise', () => {
    expect(loadConfig({}).emailRetentionDays).toBeUndefined();
    expect(loadConfig({ EMAIL_RETENTION_DAYS: '365' }).emailRetentionDays).toBe(365);
    expect(() => loadConfig({ EMAIL_RETENTION_DAYS: '0' })).toThrow(/EMAIL_RETENTION_DAYS/);
    expect(() => loadConfig({ EMAIL_RETENTION_DAYS: 'a year' })).toThrow(/EMAIL_RETENTION_DAYS/);
  });

  it('keeps only the origin of SNS_TRUSTED_ORIGIN', () => {
    expect(loadConfig({ SNS_TRUSTED_ORIGIN: 'http://127.0.0.1:9000/some/path' }).snsTrustedOrigin).toBe(
      'http://127.0.0.1:9000',
    );
  });

  it('takes relay webhook credentials as user:password with a password of 16 characters or more', () => {
    const ok = 'postbox:0123456789abcdef';
    expect(loadConfig({ POSTMARK_WEBHOOK_CREDENTIALS: ok }).postmarkWebhookCredentials).toBe(ok);
    expect(loadConfig({ BREVO_WEBHOOK_CREDENTIALS: ok }).brevoWebhookCredentials).toBe(ok);
    expect(() => loadConfig({ POSTMARK_WEBHOOK_CREDENTIALS: 'postbox:short' })).toThrow(/POSTMARK_WEBHOOK_CREDENTIALS/);
    expect(() => loadConfig({ BREVO_WEBHOOK_CREDENTIALS: '0123456789abcdefgh' })).toThrow(/BREVO_WEBHOOK_CREDENTIALS/);
  });
  it('reads single sign-on as all of OIDC_* or none, and says what is missing', () => {
    const sso = {
      OIDC_ISSUER: 'https://login.example.com/realms/staff',
      OIDC_CLIENT_ID: 'postbox',
      OIDC_CLIENT_SECRET: 's3cret',
      OIDC_ALLOWED_DOMAINS: ' Example.com, @example.org ',
    };
    expect(loadConfig({}).sso).toBeUndefined();
    expect(loadConfig(sso).sso).toEqual({
      issuer: sso.OIDC_ISSUER,
      clientId: 'postbox',
      clientSecret: 's3cret',
      providerName: 'login.example.com',
      allowedDomains: ['example.com', 'example.org'],
      project: undefined,
      role: 'member',
      ssoOnly: false,
    });
    expect(loadConfig({ ...sso, OIDC_ALLOWED_DOMAINS: '*', OIDC_ONLY: 'true' }).sso).toMatchObject({
      allowedDomains: 'any',
      ssoOnly: true,
    });
    expect(() => loadConfig({ ...sso, OIDC_ALLOWED_DOMAINS: '' })).toThrow(/OIDC_ALLOWED_DOMAINS: required/);
    expect(() => loadConfig({ ...sso, OIDC_ALLOWED_DOMAINS: 'not a domain' })).toThrow(/OIDC_ALLOWED_DOMAINS/);
    expect(() => loadConfig({ ...sso, OIDC_CLIENT_SECRET: undefined })).toThrow(/OIDC_CLIENT_SECRET: required/);
    expect(() => loadConfig({ ...sso, OIDC_ROLE: 'boss' })).toThrow(/OIDC_ROLE/);
    expect(() => loadConfig({ ...sso, OIDC_ISSUER: 'http://login.example.com' })).toThrow(
      /OIDC_ISSUER: must be an https/,
    );
    expect(loadConfig({ ...sso, OIDC_ISSUER: 'http://127.0.0.1:9000' }).sso?.issuer).toBe('http://127.0.0.1:9000');
    expect(() => loadConfig({ OIDC_ONLY: 'true' })).toThrow(/OIDC_ONLY: only with OIDC_ISSUER/);
    expect(() => loadConfig({ OIDC_CLIENT_ID: 'postbox' })).toThrow(/OIDC_CLIENT_ID: only with OIDC_ISSUER/);
  });
});

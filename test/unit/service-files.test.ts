import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERVICE_FILES, serviceFiles } from '../../src/platform/service-files.js';

describe('the files the service reads beside its code', () => {
  it('from source, are where the repository keeps them, and there', () => {
    expect(fs.existsSync(`${SERVICE_FILES.migrations}/meta/_journal.json`)).toBe(true);
    expect(SERVICE_FILES.webApp).toMatch(/\/web\/dist\/$/);
    expect(fs.existsSync(fileURLToPath(SERVICE_FILES.untrustedWorker))).toBe(true);
  });

  it('from the build, are beside the bundle', () => {
    expect(serviceFiles('file:///srv/postbox/dist/main.js')).toEqual({
      migrations: '/srv/postbox/dist/migrations',
      webApp: '/srv/postbox/dist/web/',
      untrustedWorker: 'file:///srv/postbox/dist/untrusted-worker.js',
    });
  });
});

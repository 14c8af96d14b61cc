import { mkdtempSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestProject, type TestServer } from '../support/server.js';

let server: TestServer;
let main: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  main = await server.project('uploads');
});
afterAll(() => server.stop());

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);
const GIF = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.alloc(32, 1)]);

async function upload(
  content: Buffer,
  o: { filename?: string; type?: string; field?: string; key?: string; to?: TestServer } = {},
) {
  const form = new FormData();
  form.append(
    o.field ?? 'file',
    new Blob([new Uint8Array(content)], { type: o.type ?? 'image/png' }),
    o.filename ?? 'logo.png',
  );
  const res = await fetch(`${(o.to ?? server).url}/uploads/image`, {
    method: 'POST',
    headers: { authorization: `Bearer ${o.key ?? main.secretKey}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const storedFiles = async () =>
  readdir(path.join(server.service.ctx.config.dataDir, 'uploads', main.id)).catch(() => [] as string[]);

describe('POST /uploads/image', () => {
  it('stores an image under a random name and serves it at the public URL it answers', async () => {
    const res = await upload(PNG);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      url: expect.stringMatching(new RegExp(`^${server.url}/uploads/${main.id}/[0-9a-f]{32}\\.png$`)),
      contentType: 'image/png',
      size: PNG.length,
    });
    const served = await fetch(res.body.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toContain('immutable');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('judges the type by the content, not by the name or declared type', async () => {
    const gif = await upload(GIF, { filename: 'photo.png', type: 'image/png' });
    expect(gif.status).toBe(201);
    expect(gif.body.contentType).toBe('image/gif');
    expect(gif.body.url).toMatch(/\.gif$/);

    const before = await storedFiles();
    const svg = await upload(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), {
      filename: 'x.svg',
      type: 'image/svg+xml',
    });
    expect(svg.status).toBe(415);
    expect(svg.body.error).toMatchObject({ code: 'UNSUPPORTED_IMAGE_TYPE' });
    const html = await upload(Buffer.from('<html></html>'), { filename: 'x.png', type: 'image/png' });
    expect(html.status).toBe(415);
    expect(await storedFiles()).toEqual(before);
  });

  it('refuses a file over 5 MB with 413, and stores nothing', async () => {
    const before = await storedFiles();
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
    const res = await upload(big);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'FILE_TOO_LARGE' });
    expect(await storedFiles()).toEqual(before);
  });

  it('answers 400 without a multipart file field, and 401 without the secret key', async () => {
    const json = await fetch(`${server.url}/uploads/image`, {
      method: 'POST',
      headers: { authorization: `Bearer ${main.secretKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
    expect((await upload(PNG, { field: 'image' })).status).toBe(400);
    expect((await upload(PNG, { key: main.publicKey })).status).toBe(401);
  });

  it('serves only names it made: other paths are 404 or 422', async () => {
    expect((await fetch(`${server.url}/uploads/${main.id}/${'0'.repeat(32)}.png`)).status).toBe(404);
    expect((await fetch(`${server.url}/uploads/${main.id}/..%2F..%2Fpg`)).status).toBe(422);
    expect((await fetch(`${server.url}/uploads/not-a-project/${'0'.repeat(32)}.png`)).status).toBe(422);
  });
});

describe('POST /uploads/image with S3-compatible storage', () => {
  let s3: S3rver;
  let s3Url: string;
  let withS3: TestServer;
  let project: TestProject;

  beforeAll(async () => {
    s3 = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: mkdtempSync(path.join(os.tmpdir(), 'pbx-s3-')),
      configureBuckets: [{ name: 'media' }],
    });
    const { port } = await s3.run();
    s3Url = `http://127.0.0.1:${port}`;
    withS3 = await startTestServer({
      S3_BUCKET: 'media',
      S3_ENDPOINT: s3Url,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_PUBLIC_URL: `${s3Url}/media`,
    });
    project = await withS3.project('uploads-s3');
  });
  afterAll(async () => {
    await withS3?.stop();
    await s3?.close();
  });

  it('puts the image in the bucket under the project and answers the bucket URL; nothing is kept locally', async () => {
    const res = await upload(GIF, { to: withS3, key: project.secretKey });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      url: expect.stringMatching(new RegExp(`^${s3Url}/media/${project.id}/[0-9a-f]{32}\\.gif$`)),
      contentType: 'image/gif',
      size: GIF.length,
    });
    const stored = await fetch(res.body.url);
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-type')).toBe('image/gif');
    expect(Buffer.from(await stored.arrayBuffer()).equals(GIF)).toBe(true);
    await expect(readdir(path.join(withS3.service.ctx.config.dataDir, 'uploads'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('answers 503 when the bucket cannot be reached', async () => {
    await s3.close();
    try {
      const res = await upload(PNG, { to: withS3, key: project.secretKey });
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    } finally {
      await s3.run();
    }
  });
});

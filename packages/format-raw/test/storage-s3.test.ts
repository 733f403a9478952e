import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type TestS3Server } from '@trove/blobstore/testing/s3-server';
import type { TestServer } from '@trove/core/testing/server';
import { client, s3Settings, sha, startStorageServer, until } from './storage-server.js';

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

describe('downloads from S3', () => {
  let server: TestServer;
  const c = client(() => server.url);
  const big = randomBytes(300_000);
  const small = randomBytes(1000);
  beforeAll(async () => {
    server = await startStorageServer();
    // An empty store: the new one takes over at once, no move.
    const r = await c.api('PATCH', '/settings', s3Settings(s3, 'downloads'));
    expect(r.status).toBe(200);
    await c.put('big.bin', big);
    await c.put('small.bin', small);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers a GET with 302 to a presigned URL that serves the bytes, and never redirects HEAD', async () => {
    const r = await c.get('big.bin', { redirect: 'manual' });
    expect(r.status).toBe(302);
    const location = r.headers.get('location')!;
    expect(location).toContain(`/${s3.bucket}/downloads/sha256/`);
    expect(location).toMatch(/X-Amz-Expires=300/);
    const direct = await fetch(location);
    expect(direct.status).toBe(200);
    expect(sha(Buffer.from(await direct.arrayBuffer()))).toBe(sha(big));

    const head = await c.get('big.bin', { method: 'HEAD', redirect: 'manual' });
    expect(head.status).toBe(200);
    expect(head.headers.get('location')).toBeNull();
    expect(head.headers.get('content-length')).toBe(String(big.length));
  });

  it('redirects a small file too: every GET download does while s3.redirect is on', async () => {
    const r = await c.get('small.bin', { redirect: 'manual' });
    expect(r.status).toBe(302);
    const direct = await fetch(r.headers.get('location')!);
    expect(sha(Buffer.from(await direct.arrayBuffer()))).toBe(sha(small));
    expect((await c.get('small.bin', { method: 'HEAD', redirect: 'manual' })).status).toBe(200);
  });

  it('presigns for presign_ttl', async () => {
    expect((await c.api('PATCH', '/settings', { presign_ttl: '90s' })).status).toBe(200);
    const r = await c.get('big.bin', { redirect: 'manual' });
    expect(r.headers.get('location')).toMatch(/X-Amz-Expires=90/);
  });

  it('streams with ranges and conditional requests when s3.redirect is off', async () => {
    expect((await c.api('PATCH', '/settings', { 's3.redirect': false })).status).toBe(200);
    const whole = await c.get('big.bin', { redirect: 'manual' });
    expect(whole.status).toBe(200);
    expect(sha(Buffer.from(await whole.arrayBuffer()))).toBe(sha(big));
    const etag = whole.headers.get('etag')!;
    const part = await c.get('big.bin', { headers: { Range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${big.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(big.subarray(1000, 2000))).toBe(true);
    expect((await c.get('big.bin', { headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect((await c.get('big.bin', { headers: { Range: `bytes=${big.length}-` } })).status).toBe(416);
    expect((await c.api('PATCH', '/settings', { 's3.redirect': true })).status).toBe(200);
  });

  it('sweeps a blob no file references once it is older than the grace period, and keeps the rest', async () => {
    const first = randomBytes(100_000);
    await c.put('replaced.bin', first);
    await c.put('replaced.bin', randomBytes(100_000)); // the repository allows overwrites: the first blob is garbage now
    expect((await c.api('PATCH', '/settings', { 'storage.gc_grace': '1s' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    const started = await c.api('POST', '/storage/gc');
    expect(started.status).toBe(202);
    const end = await until(() => c.api('GET', '/storage/gc'), (r) => r.body.state !== 'running', 'the sweep');
    expect(end.body).toMatchObject({ state: 'done', removed: 1, bytes: 100_000 });
    expect(end.body.scanned).toBeGreaterThanOrEqual(4);
    for (const [p, b] of [['big.bin', big], ['small.bin', small]] as const) {
      const r = await c.get(p, { redirect: 'follow' });
      expect(sha(Buffer.from(await r.arrayBuffer()))).toBe(sha(b));
    }
  });
});

describe('start-up rule', () => {
  it('refuses to start with TR_STORAGE=s3 and no bucket, endpoint or keys', async () => {
    await expect(startStorageServer({ env: { TR_STORAGE: 's3' } })).rejects.toThrow(/TR_S3_BUCKET/);
    await expect(startStorageServer({ env: { TR_STORAGE: 's3', TR_S3_ENDPOINT: 'http://127.0.0.1:9', TR_S3_BUCKET: 'b' } })).rejects.toMatchObject({ name: 'BootError' });
  });

  it('starts on S3 configured by the environment and stores blobs there', async () => {
    const env = { TR_STORAGE: 's3', TR_S3_ENDPOINT: s3.endpoint, TR_S3_BUCKET: s3.bucket, TR_S3_ACCESS_KEY_ID: s3.accessKeyId, TR_S3_SECRET_ACCESS_KEY: s3.secretAccessKey, TR_S3_PATH_STYLE: 'true', TR_S3_PREFIX: 'env', TR_S3_REDIRECT: 'false' };
    const server = await startStorageServer({ env });
    try {
      const c = client(() => server.url);
      const b = randomBytes(100_000);
      await c.put('env.bin', b);
      expect(server.ctx.blobs.name).toBe('s3');
      const r = await c.get('env.bin');
      expect(sha(Buffer.from(await r.arrayBuffer()))).toBe(sha(b));
      // Env-locked: a change is refused, not probed.
      expect((await c.api('PATCH', '/settings', { storage: 'fs' })).status).toBe(409);
    } finally {
      await server.close();
    }
  });
});

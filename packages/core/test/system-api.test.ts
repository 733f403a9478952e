import { Readable } from 'node:stream';
import { statfsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { auth, coreServer, json } from './helpers.js';
import type { TestServer } from '../src/testing/server.js';

let s: TestServer;
afterEach(() => s?.close());

async function addAsset(s: TestServer, repoName: string, path: string, body: string) {
  const repo = s.ctx.repos.require(repoName);
  const file = await s.ctx.spool.receive(Readable.from([Buffer.from(body)]), { maxBytes: 1e6 });
  return s.ctx.assets.commit({ repo, path, file, contentType: 'text/plain', uploader: 'ci', onExisting: 'conflict' });
}

describe('system API', () => {
  it('is for admins only', async () => {
    s = await coreServer();
    expect((await fetch(`${s.url}/api/system`)).status).toBe(401);
    expect((await fetch(`${s.url}/api/system`, { headers: auth('alicepw') })).status).toBe(403);
  });

  it('reports version, uptime, storage, counts, database size and free disk space', async () => {
    s = await coreServer();
    for (const name of ['a', 'b']) {
      const r = await fetch(`${s.url}/api/repos`, { method: 'POST', headers: json('adminpw'), body: JSON.stringify({ name, format: 'note' }) });
      expect(r.status).toBe(201);
    }
    await addAsset(s, 'a', 'one.txt', 'x'.repeat(1000));
    await addAsset(s, 'b', 'two.txt', 'y'.repeat(24));
    const r = await fetch(`${s.url}/api/system`, { headers: auth('adminpw') });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body).toMatchObject({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      storage: { backend: 'fs', location: join(s.dataDir, 'blobs'), driver: 'fs' },
      repositories: 2,
      files: 2,
      bytes: 1024,
    });
    expect(body.uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(body.database_bytes).toBeGreaterThan(0);
    const fsNow = statfsSync(s.dataDir);
    expect(body.disk.data_dir).toMatchObject({ path: s.dataDir, total_bytes: fsNow.blocks * fsNow.bsize });
    expect(body.disk.data_dir.free_bytes).toBeGreaterThan(0);
    expect(body.disk.blob_root).toMatchObject({ path: join(s.dataDir, 'blobs') });
  });

  it('names the S3 bucket as the location and has no local blob root on S3', async () => {
    s = await coreServer({ TR_STORAGE: 's3', TR_S3_ENDPOINT: 'http://127.0.0.1:9/', TR_S3_BUCKET: 'artifacts', TR_S3_PREFIX: 'trove', TR_S3_ACCESS_KEY_ID: 'k', TR_S3_SECRET_ACCESS_KEY: 's' });
    const body = await (await fetch(`${s.url}/api/system`, { headers: auth('adminpw') })).json();
    expect(body.storage).toMatchObject({ backend: 's3', location: 'http://127.0.0.1:9/artifacts/trove' });
    expect(body.disk.blob_root).toBeNull();
    expect(JSON.stringify(body)).not.toContain('"s"'); // no secret in the answer
  });
});

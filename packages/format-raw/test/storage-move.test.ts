import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type TestS3Server } from '@trove/blobstore/testing/s3-server';
import type { TestServer } from '@trove/core/testing/server';
import { schema } from '@trove/core';
import { client, eachLimited, filesUnder, makeFiles, s3Settings, sha, startStorageServer, until } from './storage-server.js';

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

/** Objects under `prefix` on the test S3 server, as the s3rver directory holds them. */
function objectsUnder(prefix: string): string[] {
  return filesUnder(join(s3.dir, s3.bucket, prefix)).filter((f) => f.endsWith('._S3rver_object'));
}

async function waitEnded(c: ReturnType<typeof client>, id: string) {
  return until(() => c.api('GET', `/storage/moves/${id}`), (r) => r.body.state !== 'copying' && (r.body.state !== 'done' || r.body.old_removed !== null), 'the move to end');
}

describe('storage move', () => {
  let server: TestServer;
  const c = client(() => server.url);
  beforeAll(async () => {
    server = await startStorageServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('moves 2,000 files fs -> s3 -> fs while a reader and a writer run, with no failed read and no lost write', async () => {
    const files = makeFiles(2000, 'm');
    await eachLimited([...files], 8, ([p, b]) => c.put(p, b));
    expect((await c.api('GET', '/storage/moves/current')).status).toBe(404);

    const paths = [...files.keys()];
    const written = new Map<string, Buffer>();
    const readFailures: string[] = [];
    let reads = 0;
    let stop = false;
    const reader = (async () => {
      while (!stop) {
        const p = paths[Math.floor(Math.random() * paths.length)]!;
        const r = await c.get(p);
        const body = Buffer.from(await r.arrayBuffer());
        reads++;
        if (r.status !== 200 || sha(body) !== sha(files.get(p)!)) readFailures.push(`${p}: ${r.status}`);
      }
    })();
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const b = randomBytes(i % 10 === 0 ? 70_000 : 300);
        try {
          await c.put(`w/${i}.bin`, b);
        } catch (err) {
          // A connection reset before an answer (a keep-alive race on a loaded machine) confirmed no
          // write, so none can be lost; a 4xx/5xx answer still fails the test.
          if ((err as Error).message === 'fetch failed') continue;
          throw err;
        }
        written.set(`w/${i}.bin`, b);
      }
    })();

    const fsRoot = join(server.dataDir, 'blobs');
    const there = await c.api('PATCH', '/settings', s3Settings(s3, 'moved'));
    expect(there.status).toBe(202);
    expect(there.body.move).toMatchObject({ state: 'copying', target: { storage: 's3', bucket: s3.bucket, prefix: 'moved' } });
    // Neither the answer nor the stored job record holds a credential (the test server's key id and secret are both S3RVER).
    expect(JSON.stringify(there.body)).not.toContain(s3.secretAccessKey);
    const row = server.ctx.db.select().from(schema.jobs).all().find((j) => j.id === there.body.move.id)!;
    expect(row.payload + row.progress).not.toContain(s3.secretAccessKey);
    const first = await waitEnded(c, there.body.move.id);
    expect(first.body, JSON.stringify(first.body)).toMatchObject({ state: 'done', failed: 0 });
    expect(first.body.copied + first.body.skipped).toBeGreaterThanOrEqual(2000);
    expect(first.body.old_removed).toBeGreaterThanOrEqual(2000);
    const settings = (await c.api('GET', '/settings')).body.groups.flatMap((g: any) => g.settings);
    expect(settings.find((s: any) => s.key === 'storage').value).toBe('s3');
    expect(filesUnder(join(fsRoot, 'sha256'))).toEqual([]);
    expect(objectsUnder('moved/sha256').length).toBeGreaterThanOrEqual(2000);

    const back = await c.api('PATCH', '/settings', { storage: 'fs' });
    expect(back.status).toBe(202);
    const second = await waitEnded(c, back.body.move.id);
    expect(second.body).toMatchObject({ state: 'done', failed: 0, target: { storage: 'fs', root: fsRoot } });
    expect(objectsUnder('moved/sha256')).toEqual([]);

    stop = true;
    await Promise.all([reader, writer]);
    expect(readFailures).toEqual([]);
    expect(reads).toBeGreaterThan(100);
    expect(written.size).toBeGreaterThan(10);
    for (const [p, b] of [...written, ...[...files].filter((_, i) => i % 50 === 0)]) {
      const r = await c.get(p);
      expect(r.status, p).toBe(200);
      expect(sha(Buffer.from(await r.arrayBuffer())), p).toBe(sha(b));
    }
    expect(filesUnder(join(fsRoot, 'sha256')).length).toBeGreaterThanOrEqual(2000);
  }, 300_000);

  it('answers 409 to every settings change while a move runs, and to a cancel once it has ended', async () => {
    const files = makeFiles(400, 'c');
    await eachLimited([...files], 8, ([p, b]) => c.put(p, b));
    const start = await c.api('PATCH', '/settings', s3Settings(s3, 'cancelled'));
    expect(start.status).toBe(202);
    const id = start.body.move.id;
    expect((await c.api('PATCH', '/settings', s3Settings(s3, 'other'))).status).toBe(409);
    expect((await c.api('PATCH', '/settings', { 's3.region': 'eu-west-1' })).status).toBe(409);
    expect((await c.api('POST', '/storage/gc')).status).toBe(409);
    const other = await c.api('PATCH', '/settings', { 'log.level': 'warn' }); // SPEC: "409 ... while a storage move runs"
    expect(other.status).toBe(409);
    expect(other.body.error).toMatch(/storage move is running/);
    // A write during the move lands on the new store, and must survive the cancel.
    const during = randomBytes(90_000);
    await c.put('c/during.bin', during);

    const cancelled = await c.api('DELETE', `/storage/moves/${id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    expect((await c.api('DELETE', `/storage/moves/${id}`)).status).toBe(409);
    expect((await c.api('GET', '/storage/moves/current')).body).toMatchObject({ id, state: 'cancelled' });
    expect((await c.api('PATCH', '/settings', { 'log.level': 'warn' })).status).toBe(200);

    const settings = (await c.api('GET', '/settings')).body.groups.flatMap((g: any) => g.settings);
    expect(settings.find((s: any) => s.key === 'storage').value).toBe('fs');
    const r = await c.get('c/during.bin');
    expect(sha(Buffer.from(await r.arrayBuffer()))).toBe(sha(during));
    for (const [p, b] of [...files].filter((_, i) => i % 40 === 0)) {
      expect(sha(Buffer.from(await (await c.get(p)).arrayBuffer()))).toBe(sha(b));
    }
    expect((await c.api('GET', `/storage/moves/${id}/failures`)).body).toEqual({ items: [], next: '' });
    expect((await c.api('GET', '/storage/moves/nope')).status).toBe(404);
  }, 120_000);

  it('saves nothing when the probe of the new store fails, and tests a store without saving', async () => {
    const before = (await c.api('GET', '/settings')).body;
    const dead = { ...s3Settings(s3, 'x'), 's3.endpoint': 'http://127.0.0.1:9' };
    const r = await c.api('PATCH', '/settings', { ...dead, 'log.level': 'warn' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/storage probe failed at put/);
    const noBucket = await c.api('PATCH', '/settings', { ...s3Settings(s3, 'x'), 's3.bucket': 'no-such-bucket' });
    expect(noBucket.status).toBe(400);
    expect(noBucket.body.error).toMatch(/NoSuchBucket|bucket/i);
    expect((await c.api('GET', '/settings')).body).toEqual(before);

    expect(await c.api('POST', '/settings/storage/test', dead)).toMatchObject({ status: 400, body: { ok: false } });
    expect(await c.api('POST', '/settings/storage/test', s3Settings(s3, 'probe'))).toEqual({ status: 200, body: { ok: true } });
    expect(await c.api('POST', '/settings/storage/test', { 's3.prefix': 'a/../b', storage: 's3' })).toMatchObject({ status: 400, body: { ok: false } });
    expect((await c.api('GET', '/settings')).body).toEqual(before);
    expect(objectsUnder('probe')).toEqual([]);
  }, 60_000);
});

describe('storage move across a restart', () => {
  it('resumes a move interrupted by a restart and finishes it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trove-restart-'));
    const masterKey = randomBytes(32);
    let server = await startStorageServer({ dataDir, masterKey });
    const c = client(() => server.url);
    const files = makeFiles(800, 'r');
    await eachLimited([...files], 8, ([p, b]) => c.put(p, b));
    const start = await c.api('PATCH', '/settings', s3Settings(s3, 'restart'));
    expect(start.status).toBe(202);
    const id = start.body.move.id;
    await until(() => c.api('GET', `/storage/moves/${id}`), (r) => r.body.copied >= 50, 'some progress', 60_000);
    await server.close(); // mid-move: the job is left running and resumes at the next start

    server = await startStorageServer({ dataDir, masterKey });
    try {
      const end = await waitEnded(c, id);
      expect(end.body).toMatchObject({ state: 'done', failed: 0 });
      expect(end.body.copied + end.body.skipped).toBeGreaterThanOrEqual(800);
      for (const [p, b] of [...files].filter((_, i) => i % 25 === 0)) {
        const r = await c.get(p);
        expect(sha(Buffer.from(await r.arrayBuffer())), p).toBe(sha(b));
      }
      expect(filesUnder(join(dataDir, 'blobs', 'sha256'))).toEqual([]);
    } finally {
      await server.close();
    }
  }, 180_000);
});

describe('a cancelled move whose old store fails for a while', () => {
  it('keeps trying to return the files written meanwhile until the old store takes them', async () => {
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      const files = makeFiles(300, 'ret');
      await eachLimited([...files], 8, ([p, b]) => c.put(p, b));
      const start = await c.api('PATCH', '/settings', s3Settings(s3, 'returning'));
      expect(start.status).toBe(202);
      const during = randomBytes(70_000);
      await c.put('ret/during.bin', during); // only on the new store
      // The old store cannot take a file for a second (a full disk freed, a 5xx): its temp directory is in the way.
      const tmp = join(server.dataDir, 'blobs', '.tmp');
      rmSync(tmp, { recursive: true, force: true });
      writeFileSync(tmp, 'in the way');
      setTimeout(() => rmSync(tmp, { force: true }), 1200);
      const cancelled = await c.api('DELETE', `/storage/moves/${start.body.move.id}`);
      expect(cancelled.body.state).toBe('cancelled');
      const r = await c.get('ret/during.bin');
      expect(r.status).toBe(200);
      expect(sha(Buffer.from(await r.arrayBuffer()))).toBe(sha(during));
      expect((await c.api('GET', `/storage/moves/${start.body.move.id}/failures`)).body.items).toEqual([]);
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe('storage change on an empty store', () => {
  it('waits for the uploads under way, and moves what they stored instead of dropping it', async () => {
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      expect((await c.api('PATCH', '/settings', s3Settings(s3, 'empty-switch'))).status).toBe(200); // nothing to move yet
      const body = randomBytes(96 * 1024 * 1024);
      const answer = fetch(`${server.url}/raw/files/first.bin`, { method: 'PUT', headers: { Authorization: 'Basic ' + Buffer.from('x:pub').toString('base64') }, body });
      // Once the body is spooled, the upload is storing it on S3: switch back to fs in the meantime.
      const spool = join(server.dataDir, 'spool');
      await until(async () => readdirSync(spool).map((n) => statSync(join(spool, n)).size), (sizes) => sizes.includes(body.length), 'the body spooled', 60_000);
      const back = await c.api('PATCH', '/settings', { storage: 'fs' });
      expect((await answer).status).toBe(201);
      if (back.status === 202) await waitEnded(c, back.body.move.id);
      else expect(back.status).toBe(200);
      const r = await c.get('first.bin');
      expect(r.status).toBe(200);
      expect(sha(Buffer.from(await r.arrayBuffer()))).toBe(sha(body));
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe('a move between two S3 stores with their own credentials', () => {
  let other: TestS3Server;
  beforeAll(async () => {
    other = await startS3Server({ accessKey: 'OTHERKEY' });
  });
  afterAll(async () => {
    await other?.close();
  });

  it('reaches each store with its own keys across restarts: mid-move, and after a cancel', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trove-two-s3-'));
    const masterKey = randomBytes(32);
    let server = await startStorageServer({ dataDir, masterKey });
    const c = client(() => server.url);
    try {
      const files = makeFiles(400, 'keys');
      await eachLimited([...files], 8, ([p, b]) => c.put(p, b));
      const first = await c.api('PATCH', '/settings', s3Settings(s3, 'keys-a'));
      expect((await waitEnded(c, first.body.move.id)).body.state).toBe('done');
      const reads = async (what: string) => {
        for (const [p, b] of [...files].filter((_, i) => i % 20 === 0)) {
          const r = await c.get(p);
          expect(r.status, `${what}: ${p}`).toBe(200);
          expect(sha(Buffer.from(await r.arrayBuffer())), `${what}: ${p}`).toBe(sha(b));
        }
      };

      // Cancelled: the old store, with its old keys, is where the blobs stay, after a restart too.
      const cancelled = await c.api('PATCH', '/settings', s3Settings(other, 'keys-b'));
      expect(cancelled.status).toBe(202);
      expect((await c.api('DELETE', `/storage/moves/${cancelled.body.move.id}`)).body.state).toBe('cancelled');
      await server.close();
      server = await startStorageServer({ dataDir, masterKey });
      await reads('after a cancel and a restart');
      await c.put('keys/after-cancel.bin', randomBytes(1000));

      // Interrupted mid-move: the resumed move reads the old store with its keys and writes the new one with its own.
      const moved = await c.api('PATCH', '/settings', s3Settings(other, 'keys-b'));
      expect(moved.status).toBe(202);
      await until(() => c.api('GET', `/storage/moves/${moved.body.move.id}`), (r) => r.body.copied >= 20, 'some progress', 60_000);
      await server.close();
      server = await startStorageServer({ dataDir, masterKey });
      expect((await waitEnded(c, moved.body.move.id)).body).toMatchObject({ state: 'done', failed: 0 });
      await reads('after the resumed move');
      const settings = (await c.api('GET', '/settings')).body.groups.flatMap((g: any) => g.settings);
      expect(settings.find((x: any) => x.key === 's3.access_key_id').value).toBe('OTHERKEY');
      expect(objectsUnder('keys-a')).toEqual([]); // the old store emptied, with its own keys
    } finally {
      await server.close();
    }
  }, 180_000);
});

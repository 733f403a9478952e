import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GC_KIND, openDatabase } from '../src/index.js';
import type { TestServer } from '../src/testing/server.js';
import { coreServer, json } from './helpers.js';

let s: TestServer;
afterEach(() => s?.close());

const createRepo = (name: string) => fetch(`${s.url}/api/repos`, { method: 'POST', headers: json('adminpw'), body: JSON.stringify({ name, format: 'note' }) });

describe('acknowledged writes survive a power cut', () => {
  it('answers a write only after flushing the WAL it committed to', async () => {
    s = await coreServer();
    expect(existsSync(join(s.dataDir, 'trove.db-wal'))).toBe(true);
    const before = s.ctx.durability.flushes;
    expect((await createRepo('one')).status).toBe(201);
    expect(s.ctx.durability.flushes).toBe(before + 1);
  });

  it('flushes nothing for reads, or for a write request that changed nothing', async () => {
    s = await coreServer();
    expect((await createRepo('one')).status).toBe(201);
    const before = s.ctx.durability.flushes;
    expect((await fetch(`${s.url}/api/repos/one`, { headers: json('adminpw') })).status).toBe(200);
    expect((await createRepo('one')).status).toBe(409);
    expect((await createRepo('../bad')).status).toBe(400);
    expect(s.ctx.durability.flushes).toBe(before);
  });

  it('lets concurrent writes share flushes, and each still gets its answer', async () => {
    s = await coreServer();
    const before = s.ctx.durability.flushes;
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => createRepo(`repo-${i}`)));
    expect(answers.map((r) => r.status)).toEqual(Array(40).fill(201));
    const flushes = s.ctx.durability.flushes - before;
    expect(flushes).toBeGreaterThan(0);
    expect(flushes).toBeLessThan(40);
  });

  it('lets the blob sweep remove a blob only once the change that left it unreferenced is on disk', async () => {
    s = await coreServer({ TR_STORAGE_GC_GRACE: '1s' });
    const repo = await s.ctx.repos.create({ name: 'swept', format: 'note' });
    const { asset } = await s.ctx.assets.commitBytes({ repo, path: 'a.txt', bytes: 'to be swept', contentType: 'text/plain', uploader: 'x', onExisting: 'replace' });
    const past = new Date(Date.now() - 3600_000);
    utimesSync(join(s.dataDir, 'blobs', asset.blobKey), past, past); // older than the grace
    await s.ctx.durability.settled();
    // Committed by a background writer (a mirror sync, a Debian pool removal): no answer flushed it.
    s.ctx.assets.delete(repo, 'a.txt');
    const flushedBefore = s.ctx.durability.flushes;
    let flushesAtDelete: number | undefined;
    const driver = s.ctx.blobs.driver;
    const remove = driver.delete.bind(driver);
    driver.delete = async (key) => {
      flushesAtDelete = s.ctx.durability.flushes;
      return remove(key);
    };
    const sweep = s.ctx.jobs.start(GC_KIND, 'storage', {}, { scanned: 0, removed: 0, bytes: 0 });
    expect((await s.ctx.jobs.wait(sweep.id)).progress).toMatchObject({ removed: 1 });
    // Else a power cut right after the deletion would bring back a row naming a blob that is gone.
    expect(flushesAtDelete).toBeGreaterThan(flushedBefore);
  });

  it('has nothing to flush for an in-memory database', async () => {
    const { sqlite, durability } = openDatabase(':memory:');
    sqlite.exec('CREATE TABLE t (x)');
    sqlite.prepare('INSERT INTO t VALUES (1)').run();
    await durability.settled();
    expect(durability.flushes).toBe(0);
    durability.close();
    sqlite.close();
  });
});

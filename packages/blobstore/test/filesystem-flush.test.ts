import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BlobStore, Spool, contentKey, fsDriver } from '../src/index.js';
import { filesystemFlush } from '../src/drivers/filesystem-flush.js';
import { openUnder } from '../src/testing/open-files.js';

const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

/** Spools `count` distinct small files without flushing them, as a mirror import does. */
async function unflushedFiles(count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'trove-flush-'));
  const spool = new Spool(join(dir, 'spool'));
  await spool.init();
  const files = await Promise.all(Array.from({ length: count }, (_, i) => spool.receiveBytes([Buffer.from(`file ${i}\n`)], { maxBytes: 100, durable: false })));
  return { dir, files };
}

/** Puts every file through the store the way core does, counting the per-file flushes asked for. */
async function putAll(store: BlobStore, files: Awaited<ReturnType<typeof unflushedFiles>>['files']) {
  let ownFlushes = 0;
  await Promise.all(
    files.map((file) =>
      store.putIfAbsent(contentKey(file.hashes.sha256), {
        path: file.path,
        sync: async () => {
          ownFlushes++;
          await file.sync();
        },
        ...(file.durable ? {} : { release: () => file.release() }),
        onMoved: () => file.movedAway(),
      }),
    ),
  );
  await Promise.all(files.map((f) => f.dispose()));
  return ownFlushes;
}

describe('filesystem flush', () => {
  it('makes many unflushed spool files durable together, not with an fsync each, and every one lands', async () => {
    const { dir, files } = await unflushedFiles(40);
    const store = new BlobStore(fsDriver({ root: join(dir, 'blobs') }));
    expect(openUnder(join(dir, 'spool'))).toHaveLength(40); // received without a flush, still open for one

    expect(await putAll(store, files)).toBe(0);
    files.forEach((file, i) => expect(readFileSync(join(dir, 'blobs', contentKey(file.hashes.sha256)), 'utf8')).toBe(`file ${i}\n`));
    expect(openUnder(join(dir, 'spool'))).toEqual([]); // closed without a flush of their own
    expect(readdirSync(join(dir, 'spool'))).toEqual([]);
    await store.close();
  });

  it('answers only after a flush that began after the call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trove-flush-'));
    const reasons: string[] = [];
    const together = filesystemFlush(dir, 0, (r) => reasons.push(r));
    const first = together.flush(); // begins at once
    const later = Array.from({ length: 50 }, () => together.flush()); // asked while it runs: all share the next one
    expect(await first).toBe(true);
    expect(together.flushes).toBe(1);
    expect(await Promise.all(later)).toEqual(Array(50).fill(true));
    expect(together.flushes).toBe(2);
    expect(await together.flush()).toBe(true);
    expect(together.flushes).toBe(3);
    together.close();
    expect(await together.flush()).toBe(false);
    expect(reasons).toEqual([]); // a close is not a failure
  });

  it('without `sync -f`, each file is flushed on its own and still lands', async () => {
    const { dir, files } = await unflushedFiles(5);
    const noSync = join(dir, 'bin');
    mkdirSync(noSync);
    symlinkSync('/bin/sh', join(noSync, 'sh'));
    process.env.PATH = noSync; // a shell, but no `sync`
    const alone = filesystemFlush(dir);
    expect(await alone.flush()).toBe(false);
    alone.close();

    const warnings: string[] = [];
    const store = new BlobStore(fsDriver({ root: join(dir, 'blobs'), warn: (m) => warnings.push(m) }));
    expect(await putAll(store, files)).toBe(5);
    // The operator hears once why imports got slower.
    expect(warnings).toEqual([expect.stringContaining("coreutils' `sync -f` was not found")]);
    files.forEach((file, i) => expect(readFileSync(join(dir, 'blobs', contentKey(file.hashes.sha256)), 'utf8')).toBe(`file ${i}\n`));
    expect(openUnder(join(dir, 'spool'))).toEqual([]);
    await store.close();
  });
});

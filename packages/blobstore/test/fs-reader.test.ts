import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BlobStore, contentKey, fsDriver } from '../src/index.js';
import { eventually } from '../src/testing/eventually.js';
import { openUnder } from '../src/testing/open-files.js';

const keyOf = (b: Buffer) => contentKey(createHash('sha256').update(b).digest('hex'));

async function stored(b: Buffer) {
  const root = mkdtempSync(join(tmpdir(), 'trove-fs-reader-'));
  const d = fsDriver({ root });
  const src = join(mkdtempSync(join(tmpdir(), 'trove-blob-src-')), 'src');
  writeFileSync(src, b);
  await d.put(keyOf(b), { path: src });
  return { root, d, key: keyOf(b) };
}

describe('fs driver: positional reader', () => {
  it('reads any span at its position and answers 0 at the end', async () => {
    const b = randomBytes(100_000);
    const { d, key } = await stored(b);
    const r = (await d.openReader!(key))!;
    const into = Buffer.alloc(10);
    expect(await r.read(into, 10, 0)).toBe(10);
    expect(into.equals(b.subarray(0, 10))).toBe(true);
    expect(await r.read(into, 4, 99_996)).toBe(4);
    expect(into.subarray(0, 4).equals(b.subarray(99_996))).toBe(true);
    expect(await r.read(into, 10, 99_998)).toBe(2);
    expect(await r.read(into, 10, 100_000)).toBe(0);
    r.close();
  });

  it('answers null for a missing key and opens nothing', async () => {
    const { root, d } = await stored(randomBytes(10));
    expect(await d.openReader!(keyOf(randomBytes(10)))).toBeNull();
    expect(openUnder(root)).toEqual([]);
  });

  it('releases the file on close, once, and refuses reads after it', async () => {
    const { root, d, key } = await stored(randomBytes(1000));
    const r = (await d.openReader!(key))!;
    expect(openUnder(root)).toHaveLength(1);
    r.close();
    r.close();
    await eventually(() => openUnder(root).length === 0, 'the file is closed'); // close is asynchronous
    await expect(r.read(Buffer.alloc(10), 10, 0)).rejects.toThrow(/closed/);
  });

  it('is offered through the store, falling back to the previous driver during a move', async () => {
    const b = randomBytes(5000);
    const { d: old, key } = await stored(b);
    const store = new BlobStore(old);
    store.beginMove(fsDriver({ root: mkdtempSync(join(tmpdir(), 'trove-fs-next-')) }));
    const r = (await store.openReader(key))!;
    const into = Buffer.alloc(5000);
    expect(await r.read(into, 5000, 0)).toBe(5000);
    expect(into.equals(b)).toBe(true);
    r.close();
    expect(await store.openReader(keyOf(randomBytes(10)))).toBeNull();
  });

  it('is null through the store when no driver offers it, so callers use get()', async () => {
    const b = randomBytes(100);
    const { d, key } = await stored(b);
    const { openReader: _, ...streamsOnly } = d;
    const store = new BlobStore(streamsOnly);
    expect(await store.openReader(key)).toBeNull();
    expect(await store.get(key)).not.toBeNull();
  });
});

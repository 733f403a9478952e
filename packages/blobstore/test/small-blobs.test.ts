import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BlobStore, contentKey, fsDriver, SmallBlobCache } from '../src/index.js';
import { openUnder } from '../src/testing/open-files.js';

const keyOf = (b: Buffer) => contentKey(createHash('sha256').update(b).digest('hex'));

async function storeWith(...blobs: Buffer[]) {
  const root = mkdtempSync(join(tmpdir(), 'trove-small-blobs-'));
  const store = new BlobStore(fsDriver({ root }), { smallBlobs: { maxBlobBytes: 1024, maxTotalBytes: 4096 } });
  for (const b of blobs) {
    const src = join(mkdtempSync(join(tmpdir(), 'trove-blob-src-')), 'src');
    writeFileSync(src, b);
    await store.put(keyOf(b), { path: src });
  }
  return { root, store };
}

const fileOf = (root: string, key: string) => join(root, ...key.split('/'));

describe('BlobStore.readSmall', () => {
  it('answers the bytes, then keeps answering them from memory without touching the file', async () => {
    const b = randomBytes(700);
    const { root, store } = await storeWith(b);
    expect(await store.readSmall(keyOf(b), b.length)).toEqual(b);
    rmSync(fileOf(root, keyOf(b)));
    expect(await store.readSmall(keyOf(b), b.length)).toEqual(b);
    expect(openUnder(root)).toEqual([]);
  });

  it('answers null for a missing blob and an empty buffer for an empty one', async () => {
    const empty = Buffer.alloc(0);
    const { store } = await storeWith(empty);
    expect(await store.readSmall(keyOf(empty), 0)).toEqual(empty);
    expect(await store.readSmall(keyOf(randomBytes(8)), 8)).toBeNull();
  });

  it('refuses a stored blob whose length differs from the expected size instead of serving it', async () => {
    const b = randomBytes(600);
    const { root, store } = await storeWith(b);
    truncateSync(fileOf(root, keyOf(b)), 300);
    await expect(store.readSmall(keyOf(b), b.length)).rejects.toThrow(/300 bytes where 600/);
  });

  it('forgets a blob once it is deleted', async () => {
    const b = randomBytes(500);
    const { store } = await storeWith(b);
    await store.readSmall(keyOf(b), b.length);
    await store.delete(keyOf(b));
    expect(await store.readSmall(keyOf(b), b.length)).toBeNull();
  });

  it('serves new bytes after a key is written again', async () => {
    const { store } = await storeWith();
    const key = 'mutable/index';
    const put = async (text: string) => {
      const src = join(mkdtempSync(join(tmpdir(), 'trove-blob-src-')), 'src');
      writeFileSync(src, text);
      await store.put(key, { path: src });
    };
    await put('first');
    expect(String(await store.readSmall(key, 5))).toBe('first');
    await put('again');
    expect(String(await store.readSmall(key, 5))).toBe('again');
  });
});

describe('SmallBlobCache', () => {
  it('holds no blob over its per-blob limit and evicts the least recently used past its total', () => {
    const cache = new SmallBlobCache({ maxBlobBytes: 100, maxTotalBytes: 250 });
    cache.remember('big', Buffer.alloc(101));
    expect(cache.get('big')).toBeUndefined();
    cache.remember('a', Buffer.alloc(100));
    cache.remember('b', Buffer.alloc(100));
    cache.get('a');
    cache.remember('c', Buffer.alloc(100));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.heldBytes).toBeLessThanOrEqual(250);
  });
});

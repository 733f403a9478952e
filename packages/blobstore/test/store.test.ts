import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { BlobStore, fsDriver, type BlobDriver } from '../src/index.js';

const fresh = () => fsDriver({ root: mkdtempSync(join(tmpdir(), 'trove-store-')) });
const bytes = (s: string) => ({ stream: Readable.from([Buffer.from(s)]) });
const read = async (store: BlobStore, key: string) => {
  const s = await store.get(key);
  return s ? (await buffer(s)).toString() : null;
};

describe('BlobStore during a move', () => {
  it('reads the old store first, writes to the target, and finds blobs written since on the target', async () => {
    const old = fresh();
    const target = fresh();
    await old.put('a/1', bytes('old copy'));
    await target.put('a/1', bytes('new copy')); // a copy in progress must never be what a reader gets
    const store = new BlobStore(old);
    store.beginMove(target);
    expect(await read(store, 'a/1')).toBe('old copy');
    await store.put('a/2', bytes('written during the move'));
    expect(await old.head('a/2')).toBeNull();
    expect(await read(store, 'a/2')).toBe('written during the move');
    store.returnWrites();
    await store.put('a/3', bytes('after a cancel'));
    expect(await target.head('a/3')).toBeNull();
    expect(await read(store, 'a/2')).toBe('written during the move'); // still found on the target
    store.endMove(old);
    expect(store.moving).toBe(false);
  });

  it('holds drainReads until every stream on that store is closed', async () => {
    const old = fresh();
    await old.put('k', { stream: Readable.from([Buffer.alloc(1024 * 1024)]) });
    const store = new BlobStore(old);
    store.beginMove(fresh());
    const stream = (await store.get('k'))!;
    let drained = false;
    const drain = store.drainReads(old).then(() => (drained = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(drained).toBe(false);
    await buffer(stream);
    await drain;
    expect(drained).toBe(true);
  });

  it('offers no presigned URLs while two stores are in play', async () => {
    const presigning: BlobDriver = { ...fresh(), presignGet: async () => 'http://x' };
    const store = new BlobStore(presigning);
    expect(store.presignGet).toBeDefined();
    store.beginMove(fresh());
    expect(store.presignGet).toBeUndefined();
  });
});

describe('BlobStore garbage collection', () => {
  it('never collects a pinned key, and an upload that pins during a collection stores the blob again', async () => {
    const d = fresh();
    const store = new BlobStore(d);
    await store.put('g/1', bytes('x'));
    const release = store.pin('g/1');
    expect(await store.collect('g/1', () => true)).toBe(false);
    release();
    expect(await store.collect('g/1', () => false)).toBe(false); // still referenced
    const collecting = store.collect('g/1', () => true); // claims the key synchronously
    const unpin = store.pin('g/1');
    await store.putIfAbsent('g/1', bytes('x')); // waits for the deletion, then writes
    unpin();
    expect(await collecting).toBe(true);
    expect(await d.head('g/1')).toEqual({ size: 1 });
  });

  it('waits in settlePins for writes begun before it', async () => {
    const store = new BlobStore(fresh());
    const release = store.pin('p');
    let settled = false;
    const s = store.settlePins().then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    release();
    await s;
    expect(settled).toBe(true);
  });
});

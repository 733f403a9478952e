import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BlobStore, Spool, contentKey, fsDriver } from '../src/index.js';
import { openUnder } from '../src/testing/open-files.js';
import { runDriverSuite } from './driver.case.js';

runDriverSuite('fs', async () => fsDriver({ root: mkdtempSync(join(tmpdir(), 'trove-fs-')) }));

describe('fs driver', () => {
  it('refuses keys that would escape the root', async () => {
    const d = fsDriver({ root: mkdtempSync(join(tmpdir(), 'trove-fs-')) });
    await expect(d.head('../etc/passwd')).rejects.toThrow(/invalid blob key/);
    await expect(d.put('a/../../x', { stream: Readable.from(['x']) })).rejects.toThrow(/invalid blob key/);
  });

  it('leaves no temporary file behind when a stream fails mid-put', async () => {
    const root = mkdtempSync(join(tmpdir(), 'trove-fs-'));
    const d = fsDriver({ root });
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1000));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(d.put('k/one', { stream: failing })).rejects.toThrow('client went away');
    expect(existsSync(join(root, 'k', 'one'))).toBe(false);
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });

  it('takes a spool file as the blob itself, creating its directory, and the spool is left empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trove-fs-'));
    const spool = new Spool(join(dir, 'spool'));
    await spool.init();
    const store = new BlobStore(fsDriver({ root: join(dir, 'blobs') }));
    const file = await spool.receive(Readable.from([Buffer.from('hello blob')]), { maxBytes: 100 });
    const key = contentKey(file.hashes.sha256);
    let moved = 0;
    await store.putIfAbsent(key, { path: file.path, onMoved: () => (moved++, file.movedAway()) });
    await file.dispose();
    expect(moved).toBe(1);
    expect(readFileSync(join(dir, 'blobs', key), 'utf8')).toBe('hello blob');
    expect(readdirSync(join(dir, 'spool'))).toEqual([]);
    expect(existsSync(join(dir, 'blobs', '.tmp'))).toBe(false); // no second name on the way

    // The same bytes again: asking whether the key exists would cost what the rename does, so the twin
    // simply takes the key's place, and the spool is left empty either way.
    const again = await spool.receive(Readable.from([Buffer.from('hello blob')]), { maxBytes: 100 });
    await store.putIfAbsent(key, { path: again.path, onMoved: () => (moved++, again.movedAway()) });
    expect(moved).toBe(2);
    expect(readFileSync(join(dir, 'blobs', key), 'utf8')).toBe('hello blob');
    expect(readdirSync(join(dir, 'spool'))).toEqual([]);
    await again.dispose();
    await again.dispose(); // twice is harmless

    // A file the driver did not take (a stream put elsewhere, a refused key) stays with its owner until dispose.
    const kept = await spool.receive(Readable.from([Buffer.from('kept')]), { maxBytes: 100 });
    expect(readdirSync(join(dir, 'spool'))).toHaveLength(1);
    await kept.dispose();
    expect(readdirSync(join(dir, 'spool'))).toEqual([]);
  });

  it('flushes a spool file received without a flush before the file takes its blob name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trove-fs-'));
    const spool = new Spool(join(dir, 'spool'));
    await spool.init();
    const store = new BlobStore(fsDriver({ root: join(dir, 'blobs') }));
    const file = await spool.receive(Readable.from([Buffer.from('later')]), { maxBytes: 100, durable: false });
    const key = contentKey(file.hashes.sha256);
    const calls: string[] = [];
    await store.putIfAbsent(key, {
      path: file.path,
      sync: async () => {
        calls.push(existsSync(join(dir, 'blobs', key)) ? 'sync after the rename' : 'sync');
        await file.sync();
      },
      onMoved: () => (calls.push('moved'), file.movedAway()),
    });
    expect(calls).toEqual(['sync', 'moved']);
    expect(readFileSync(join(dir, 'blobs', key), 'utf8')).toBe('later');
    await file.dispose();
  });
  it('keeps no descriptor of a key directory that was removed, and none once closed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'trove-fs-'));
    const d = fsDriver({ root });
    const dirsHeld = () => openUnder(root, 'directories');
    await d.put('k/one', { stream: Readable.from(['one']) });
    expect(dirsHeld()).toEqual([join(root, 'k')]); // kept for the next put's flush
    await d.put('k/two', { stream: Readable.from(['two']) });
    expect(dirsHeld()).toEqual([join(root, 'k')]);

    rmSync(join(root, 'k'), { recursive: true });
    await d.put('k/three', { stream: Readable.from(['three']) });
    expect(readFileSync(join(root, 'k', 'three'), 'utf8')).toBe('three');
    // The put made the directory again and flushes that one: no descriptor of the removed one is left.
    expect(dirsHeld()).toEqual([join(root, 'k')]);

    await d.close?.();
    await new Promise((r) => setTimeout(r, 50)); // the closes are not awaited by close()
    expect(dirsHeld()).toEqual([]);
  });
});

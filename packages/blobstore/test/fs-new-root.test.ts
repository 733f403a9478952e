import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contentKey, fsDriver, Spool } from '../src/index.js';

/** Every directory or file fsynced through `node:fs`'s callback API (what the fs driver uses), by path. */
const seen = vi.hoisted(() => ({ synced: [] as string[], fdPaths: new Map<number, string>() }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const open = ((path: string, flags: string, cb: (err: NodeJS.ErrnoException | null, fd: number) => void) =>
    fs.open(path, flags, (err, fd) => {
      if (!err) seen.fdPaths.set(fd, String(path));
      cb(err, fd);
    })) as unknown as typeof fs.open;
  const fsync = ((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    seen.synced.push(seen.fdPaths.get(fd) ?? `fd ${fd}`);
    fs.fsync(fd, cb);
  }) as typeof fs.fsync;
  return { ...fs, default: { ...fs, open, fsync }, open, fsync };
});

const savedPath = process.env.PATH;
beforeEach(() => {
  seen.synced.length = 0;
});
afterEach(() => {
  process.env.PATH = savedPath;
});

describe('fs driver on a root that does not exist yet', () => {
  it('flushes the new root into its parent before a streamed blob counts as stored', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'trove-fresh-'));
    const root = join(parent, 'newroot');
    const d = fsDriver({ root });
    await d.put(contentKey('a'.repeat(64)), { stream: Readable.from([Buffer.from('hello')]) });
    // The root's own entry lives in `parent`: without that flush a power cut can take the whole root away.
    expect(seen.synced).toContain(parent);
    expect(seen.synced).toContain(root);
    await d.close?.();
  });

  it('flushes every directory one recursive creation made, down to the new root', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'trove-fresh-'));
    const root = join(parent, 'a', 'b');
    const d = fsDriver({ root });
    await d.put(contentKey('b'.repeat(64)), { stream: Readable.from([Buffer.from('hello')]) });
    expect(seen.synced).toEqual(expect.arrayContaining([parent, join(parent, 'a'), root]));
    await d.close?.();
  });

  it('flushes the new root for a spool file put without shared filesystem flushes too', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'trove-fresh-'));
    const spool = new Spool(join(parent, 'spool'));
    await spool.init();
    const file = await spool.receiveBytes([Buffer.from('imported')], { maxBytes: 100, durable: false });
    const noSync = join(parent, 'bin');
    mkdirSync(noSync);
    symlinkSync('/bin/sh', join(noSync, 'sh'));
    process.env.PATH = noSync; // a shell, but no `sync -f`: each file is flushed on its own
    const root = join(parent, 'newroot');
    const d = fsDriver({ root });
    seen.synced.length = 0;
    await d.put(contentKey(file.hashes.sha256), { path: file.path, sync: () => file.sync(), release: () => file.release(), onMoved: () => file.movedAway() });
    expect(seen.synced).toContain(parent);
    await file.dispose();
    await d.close?.();
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Spool, UploadIncompleteError, UploadTooLargeError } from '../src/index.js';
import { chunks, endlessBody, newSpool } from './spool-fixtures.js';

describe('upload spool', () => {
  it('writes the body and hashes it in one pass', async () => {
    const s = await newSpool();
    const b = randomBytes(100_000);
    const f = await s.receive(chunks(b), { maxBytes: 1 << 20, algorithms: ['sha1', 'md5'] });
    expect(f.size).toBe(b.length);
    expect(f.hashes.sha256).toBe(createHash('sha256').update(b).digest('hex'));
    expect(f.hashes.sha1).toBe(createHash('sha1').update(b).digest('hex'));
    expect(f.hashes.md5).toBe(createHash('md5').update(b).digest('hex'));
    expect(readFileSync(f.path).equals(b)).toBe(true);
    await f.dispose();
    expect(readdirSync(s.dir)).toEqual([]);
  });

  it('fails as soon as the limit is crossed and keeps nothing', async () => {
    const s = await newSpool();
    const endless = endlessBody();
    await expect(s.receive(endless.stream, { maxBytes: 200_000 })).rejects.toBeInstanceOf(UploadTooLargeError);
    expect(endless.produced).toBeLessThan(1_000_000);
    expect(readdirSync(s.dir)).toEqual([]);
  });

  it('refuses an announced length over the limit before reading', async () => {
    const s = await newSpool();
    await expect(s.receive(Readable.from([Buffer.alloc(10)]), { maxBytes: 5, expectedSize: 10 })).rejects.toBeInstanceOf(UploadTooLargeError);
  });

  it('refuses a body shorter than announced', async () => {
    const s = await newSpool();
    await expect(s.receive(Readable.from([Buffer.alloc(10)]), { maxBytes: 100, expectedSize: 20 })).rejects.toBeInstanceOf(UploadIncompleteError);
    expect(readdirSync(s.dir)).toEqual([]);
  });

  it('takes bytes already in memory: written whole, hashed, removed on dispose', async () => {
    const s = await newSpool();
    const b = randomBytes(10_000);
    // Views into one larger buffer, as a network stack hands them over: offsets must be honoured.
    const backing = Buffer.concat([Buffer.alloc(7, 1), b, Buffer.alloc(5, 2)]);
    const parts = [new Uint8Array(backing.buffer, backing.byteOffset + 7, 3000), new Uint8Array(backing.buffer, backing.byteOffset + 3007, 7000)];
    const f = await s.receiveBytes(parts, { maxBytes: 1 << 20, algorithms: ['sha1', 'md5', 'sha512'] });
    expect(f.size).toBe(b.length);
    for (const alg of ['sha256', 'sha1', 'md5', 'sha512'] as const) expect(f.hashes[alg]).toBe(createHash(alg).update(b).digest('hex'));
    expect(readFileSync(f.path).equals(b)).toBe(true);
    await f.dispose();
    expect(readdirSync(s.dir)).toEqual([]);
  });

  it('refuses bytes in memory over the limit and keeps nothing', async () => {
    const s = await newSpool();
    await expect(s.receiveBytes([Buffer.alloc(10)], { maxBytes: 5 })).rejects.toBeInstanceOf(UploadTooLargeError);
    expect(readdirSync(s.dir)).toEqual([]);
  });

  it('keeps a file received from memory without a flush open until sync or dispose, and no longer', async () => {
    const s = await newSpool();
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    const flushed = await s.receiveBytes([Buffer.from('flushed later')], { maxBytes: 100, durable: false });
    const dropped = await s.receiveBytes([Buffer.from('never flushed')], { maxBytes: 100, durable: false });
    expect(open()).toBe(before + 2);
    await flushed.sync();
    await flushed.sync(); // once is enough
    expect(open()).toBe(before + 1);
    expect(readFileSync(flushed.path, 'utf8')).toBe('flushed later');
    await dropped.dispose();
    await flushed.dispose();
    expect(open()).toBe(before);
    expect(readdirSync(s.dir)).toEqual([]);
  });

  it('removes files a crash left behind at start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trove-spool-'));
    writeFileSync(join(dir, 'abc.part'), 'half an upload');
    const s = new Spool(dir);
    expect(await s.init()).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UploadIncompleteError, UploadTooLargeError } from '../src/index.js';
import { eventually } from '../src/testing/eventually.js';
import { openUnder } from '../src/testing/open-files.js';
import { chunks, endlessBody, newSpool } from './spool-fixtures.js';

/** The spool writes in batches of 1 MiB (spool.ts); these bodies cross several batch edges. */
const MiB = 1024 * 1024;

describe('upload spool: batched writes', () => {
  it('keeps every byte in order across batch edges, whatever the chunk size', async () => {
    const s = await newSpool();
    for (const [size, chunk] of [
      [3 * MiB + 12345, 65_537],
      [MiB, 65_536],
      [MiB + 1, 1000],
      [2 * MiB, 2 * MiB], // one chunk larger than a batch
      [5 * MiB + 7, 7 * 1024 + 3],
    ]) {
      const b = randomBytes(size);
      const f = await s.receive(chunks(b, chunk), { maxBytes: 10 * MiB, algorithms: ['sha1'] });
      expect(f.size).toBe(size);
      expect(readFileSync(f.path).equals(b)).toBe(true);
      expect(f.hashes.sha256).toBe(createHash('sha256').update(b).digest('hex'));
      expect(f.hashes.sha1).toBe(createHash('sha1').update(b).digest('hex'));
      await f.dispose();
    }
    await eventually(() => openUnder(s.dir).length === 0, 'every spool file is closed');
  });

  it('stores an empty body as an empty, hashed file', async () => {
    const s = await newSpool();
    const f = await s.receive(Readable.from([]), { maxBytes: 10 });
    expect(f.size).toBe(0);
    expect(readFileSync(f.path).length).toBe(0);
    expect(f.hashes.sha256).toBe(createHash('sha256').digest('hex'));
  });

  it('stops at the limit several batches in, keeping no file and no open descriptor', async () => {
    const s = await newSpool();
    const endless = endlessBody();
    await expect(s.receive(endless.stream, { maxBytes: 3 * MiB + 5 })).rejects.toBeInstanceOf(UploadTooLargeError);
    expect(endless.produced).toBeLessThan(8 * MiB);
    expect(readdirSync(s.dir)).toEqual([]);
    await eventually(() => openUnder(s.dir).length === 0, 'the spool file is closed');
  });

  it('keeps no file and no open descriptor when the client goes away mid-upload', async () => {
    const s = await newSpool();
    let sent = 0;
    const leaving = new Readable({
      read() {
        if (sent >= 3 * MiB) return this.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
        sent += 65536;
        this.push(randomBytes(65536));
      },
    });
    await expect(s.receive(leaving, { maxBytes: 100 * MiB })).rejects.toBeInstanceOf(UploadIncompleteError);
    expect(readdirSync(s.dir)).toEqual([]);
    await eventually(() => openUnder(s.dir).length === 0, 'the spool file is closed');
  });
});

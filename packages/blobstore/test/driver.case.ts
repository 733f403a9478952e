import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentKey, type BlobDriver } from '../src/index.js';

/**
 * What every blob driver must do, run against each driver (fs now, s3 when it lands).
 * `make` returns a fresh, empty driver.
 */
export function runDriverSuite(name: string, make: () => Promise<BlobDriver>) {
  describe(`blob driver conformance: ${name}`, () => {
    let d: BlobDriver;
    const scratch = mkdtempSync(join(tmpdir(), 'trove-blob-src-'));
    beforeAll(async () => {
      d = await make();
    });
    afterAll(async () => {
      await d.close?.();
    });

    const keyOf = (b: Buffer) => contentKey(createHash('sha256').update(b).digest('hex'));
    const fileWith = (b: Buffer) => {
      const p = join(scratch, randomBytes(8).toString('hex'));
      writeFileSync(p, b);
      return p;
    };

    it('stores from a file and reads the same bytes back', async () => {
      const b = randomBytes(300_000);
      const k = keyOf(b);
      await d.put(k, { path: fileWith(b) });
      expect(await d.head(k)).toEqual({ size: b.length });
      expect((await buffer((await d.get(k))!)).equals(b)).toBe(true);
    });

    it('stores from a stream', async () => {
      const b = randomBytes(70_000);
      const k = keyOf(b);
      await d.put(k, { stream: Readable.from([b.subarray(0, 1000), b.subarray(1000)]), size: b.length });
      expect((await buffer((await d.get(k))!)).equals(b)).toBe(true);
    });

    it('answers null for a missing key', async () => {
      const k = keyOf(randomBytes(10));
      expect(await d.get(k)).toBeNull();
      expect(await d.head(k)).toBeNull();
    });

    it('serves inclusive byte ranges', async () => {
      const b = Buffer.from('0123456789abcdef');
      const k = keyOf(b);
      await d.put(k, { path: fileWith(b) });
      expect((await buffer((await d.get(k, { range: { start: 2, end: 5 } }))!)).toString()).toBe('2345');
      expect((await buffer((await d.get(k, { range: { start: 10, end: 15 } }))!)).toString()).toBe('abcdef');
    });

    it('accepts the same content under the same key twice', async () => {
      const b = randomBytes(5000);
      const k = keyOf(b);
      await d.put(k, { path: fileWith(b) });
      await d.put(k, { path: fileWith(b) });
      expect((await buffer((await d.get(k))!)).equals(b)).toBe(true);
    });

    it('survives concurrent puts of one key', async () => {
      const b = randomBytes(200_000);
      const k = keyOf(b);
      await Promise.all(Array.from({ length: 8 }, () => d.put(k, { path: fileWith(b) })));
      expect((await buffer((await d.get(k))!)).equals(b)).toBe(true);
    });

    it('lists keys under a prefix and deletes them', async () => {
      const bodies = [randomBytes(10), randomBytes(11), randomBytes(12)];
      for (const b of bodies) await d.put(`list-test/${keyOf(b)}`, { path: fileWith(b) });
      const listed = [];
      for await (const e of d.list('list-test/')) listed.push(e);
      expect(listed.map((e) => e.size).sort()).toEqual([10, 11, 12]);
      for (const e of listed) await d.delete(e.key);
      const after = [];
      for await (const e of d.list('list-test/')) after.push(e);
      expect(after).toEqual([]);
      await d.delete('list-test/never-existed'); // deleting a missing key is fine
    });
  });
}

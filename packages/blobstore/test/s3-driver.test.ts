import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDriver, storageConfig, type BlobDriver } from '../src/index.js';
import { startS3Server, type TestS3Server } from '../src/testing/s3-server.js';
import { runDriverSuite } from './driver.case.js';

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

let n = 0;
/** A driver on the shared s3rver under a fresh prefix, chosen through the settings factory. */
const makeS3 = (extra: Record<string, unknown> = {}): Promise<BlobDriver> =>
  createDriver(
    storageConfig((k) =>
      ({
        storage: 's3',
        's3.endpoint': s3.endpoint,
        's3.region': s3.region,
        's3.bucket': s3.bucket,
        's3.access_key_id': s3.accessKeyId,
        's3.secret_access_key': s3.secretAccessKey,
        's3.prefix': `/t${++n}/`,
        's3.path_style': true,
        ...extra,
      })[k],
    ),
    { dataDir: tmpdir() },
  );

runDriverSuite('s3', () => makeS3());

describe('s3 driver', () => {
  it('lists past the 1,000 keys of one page', async () => {
    const d = await makeS3();
    const keys = Array.from({ length: 1010 }, (_, i) => `many/${String(i).padStart(5, '0')}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((k) => d.put(k, { stream: Readable.from([Buffer.from('x')]) })));
    }
    const seen = new Set<string>();
    for await (const e of d.list('many/')) seen.add(e.key);
    expect(seen.size).toBe(1010);
    expect(seen.has('many/01009')).toBe(true);
    await d.deleteMany!([...seen]); // two DeleteObjects requests
    const left = [];
    for await (const e of d.list('many/')) left.push(e);
    expect(left).toEqual([]);
  }, 60_000);

  it('stores a file larger than one part as a multipart upload', async () => {
    const d = await makeS3();
    const b = randomBytes(40 * 1024 * 1024 + 123);
    const p = join(mkdtempSync(join(tmpdir(), 'trove-big-')), 'f');
    writeFileSync(p, b);
    await d.put('big/one', { path: p });
    expect(await d.head('big/one')).toEqual({ size: b.length });
    expect((await buffer((await d.get('big/one', { range: { start: b.length - 10, end: b.length - 1 } }))!)).equals(b.subarray(-10))).toBe(true);
  }, 60_000);

  it('presigns a GET a plain fetch can download, with the file name', async () => {
    const d = await makeS3();
    await d.put('p/one', { stream: Readable.from([Buffer.from('hello')]) });
    const url = await d.presignGet!('p/one', { expiresInSeconds: 60, filename: 'one.txt', contentType: 'text/plain' });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello');
    expect(res.headers.get('content-disposition')).toContain('one.txt');
  });

  it('refuses a prefix with ..', async () => {
    await expect(makeS3({ 's3.prefix': 'a/../b' })).rejects.toThrow(/\.\./);
  });

  it('refuses a prefix with a `.` or an empty segment: the request path would lose it, the listing would not', async () => {
    for (const prefix of ['a/./b', '.', 'a//b']) await expect(makeS3({ 's3.prefix': prefix }), prefix).rejects.toThrow(/s3 prefix/);
  });

  it('fs is chosen for storage=fs, with <dataDir>/blobs as the default root', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trove-data-'));
    const d = await createDriver(storageConfig((k) => ({ storage: 'fs', 'fs.root': '' })[k]), { dataDir });
    expect(d.name).toBe('fs');
    await d.put('a/b', { stream: Readable.from([Buffer.from('z')]) });
    const listed = [];
    for await (const e of d.list('a/')) listed.push(e);
    expect(listed).toMatchObject([{ key: 'a/b', size: 1 }]);
  });
});

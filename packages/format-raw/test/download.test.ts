import { createHash, randomBytes } from 'node:crypto';
import { truncateSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '@trove/blobstore/testing/eventually';
import { openUnder } from '@trove/blobstore/testing/open-files';
import type { TestServer } from '@trove/core/testing/server';
import { basic } from '@trove/core/testing/resolver';
import { startFilesServer } from './files-server.js';

/** Big downloads are sent through two reused buffers of this size (serve-blob.ts); sizes around it are the edge cases. */
const CHUNK = 256 * 1024;

let s: TestServer;
afterEach(() => s?.close());

const rawServer = async () => {
  s = await startFilesServer();
};

async function put(path: string, body: Buffer) {
  const r = await fetch(`${s.url}/raw/files/${path}`, { method: 'PUT', body, headers: { Authorization: basic('pub') } });
  expect([200, 201]).toContain(r.status);
}

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${s.url}/raw/files/${path}`, { headers });
const bytes = async (r: Response) => Buffer.from(await r.arrayBuffer());
const blobPath = (b: Buffer) => {
  const h = createHash('sha256').update(b).digest('hex');
  return join(s.dataDir, 'blobs', 'sha256', h.slice(0, 2), h);
};

/** Blob files this process (the test server runs in it) holds open. */
const openBlobs = () => openUnder(join(s.dataDir, 'blobs'));

/** A GET with node:http, so the test can stop reading, leave, or see a cut-off body. */
function rawGet(path: string): Promise<{ req: ReturnType<typeof request>; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.url}/raw/files/${path}`, (res) => resolve({ req, res }));
    req.on('error', reject);
    req.end();
  });
}

describe('raw format: downloads through the reused buffers', () => {
  it('serves files around the buffer size whole, byte for byte, and releases every file', async () => {
    await rawServer();
    for (const size of [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 2 * CHUNK + 1, 5 * CHUNK + 12345]) {
      const b = randomBytes(size);
      await put(`f-${size}.bin`, b);
      const r = await get(`f-${size}.bin`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-length')).toBe(String(size));
      const got = await bytes(r);
      expect(got.length).toBe(size);
      expect(got.equals(b)).toBe(true);
    }
    await eventually(() => openBlobs().length === 0, 'every blob file is closed');
  });

  it('answers ranges at the edges of the file and of the buffers', async () => {
    await rawServer();
    const b = randomBytes(3 * CHUNK + 7);
    await put('r.bin', b);
    const cases: [string, number, number][] = [
      ['bytes=0-0', 0, 0],
      [`bytes=${b.length - 1}-`, b.length - 1, b.length - 1],
      [`bytes=${CHUNK - 1}-${CHUNK}`, CHUNK - 1, CHUNK],
      [`bytes=${CHUNK}-${3 * CHUNK - 1}`, CHUNK, 3 * CHUNK - 1],
      [`bytes=10-${10 * CHUNK}`, 10, b.length - 1], // an end past the file is clipped to it
      ['bytes=-1', b.length - 1, b.length - 1],
      [`bytes=-${b.length + 100}`, 0, b.length - 1], // a suffix longer than the file is the whole file
      [`bytes=${2 * CHUNK + 3}-`, 2 * CHUNK + 3, b.length - 1],
    ];
    for (const [range, start, end] of cases) {
      const r = await get('r.bin', { Range: range });
      expect(r.status, range).toBe(206);
      expect(r.headers.get('content-range'), range).toBe(`bytes ${start}-${end}/${b.length}`);
      expect(r.headers.get('content-length'), range).toBe(String(end - start + 1));
      expect((await bytes(r)).equals(b.subarray(start, end + 1)), range).toBe(true);
    }
    const past = await get('r.bin', { Range: `bytes=${b.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${b.length}`);
    await eventually(() => openBlobs().length === 0, 'every blob file is closed');
  });

  it('answers 416 for any range of an empty file and 200 without one', async () => {
    await rawServer();
    await put('empty.bin', Buffer.alloc(0));
    expect((await get('empty.bin', { Range: 'bytes=0-' })).status).toBe(416);
    const suffix = await get('empty.bin', { Range: 'bytes=-5' }); // the last 5 bytes of none
    expect(suffix.status).toBe(416);
    expect(suffix.headers.get('content-range')).toBe('bytes */0');
    const r = await get('empty.bin');
    expect(r.status).toBe(200);
    expect((await bytes(r)).length).toBe(0);
  });

  it('closes the blob file when the client leaves mid-download, and keeps serving', async () => {
    await rawServer();
    const b = randomBytes(32 * 1024 * 1024);
    await put('big.bin', b);
    const { req, res } = await rawGet('big.bin');
    expect(res.statusCode).toBe(200);
    await new Promise((r) => res.once('data', r));
    res.pause(); // the server fills the socket buffers, then waits on a write with the file open
    await eventually(() => openBlobs().includes(blobPath(b)), 'the server holds the blob open');
    req.destroy();
    await eventually(() => openBlobs().length === 0, 'the blob file is closed after the client left');
    const again = await get('big.bin', { Range: 'bytes=0-99' });
    expect((await bytes(again)).equals(b.subarray(0, 100))).toBe(true);
  });

  it('answers 500 rather than other bytes when a small blob is shorter than its asset', async () => {
    await rawServer();
    const b = randomBytes(1000);
    await put('short.bin', b);
    truncateSync(blobPath(b), 600);
    const r = await get('short.bin');
    expect(r.status).toBe(500);
    expect(await r.json()).toHaveProperty('error');
    await eventually(() => openBlobs().length === 0, 'the blob file is closed');
  });

  it('cuts the connection short rather than send other bytes when a big blob is shorter than its asset', async () => {
    await rawServer();
    const b = randomBytes(4 * CHUNK);
    await put('cut.bin', b);
    truncateSync(blobPath(b), 2 * CHUNK + 10);
    const { res } = await rawGet('cut.bin');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(String(b.length));
    const got: Buffer[] = [];
    res.on('data', (d: Buffer) => got.push(d));
    await new Promise<void>((resolve) => res.once('close', () => resolve()));
    expect(res.complete).toBe(false);
    const body = Buffer.concat(got);
    expect(body.length).toBeLessThan(b.length);
    expect(body.equals(b.subarray(0, body.length))).toBe(true);
    await eventually(() => openBlobs().length === 0, 'the blob file is closed');
  });
});

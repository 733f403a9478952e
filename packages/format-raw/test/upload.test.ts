import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '@trove/blobstore/testing/eventually';
import { openUnder } from '@trove/blobstore/testing/open-files';
import type { TestServer } from '@trove/core/testing/server';
import { basic } from '@trove/core/testing/resolver';
import { startFilesServer } from './files-server.js';

let s: TestServer;
afterEach(() => s?.close());

const rawServer = async () => {
  s = await startFilesServer();
};

/** Files under the data directory, other than the SQLite database, that this process (the test server runs in it) holds open. */
const openUnderData = () => openUnder(s.dataDir).filter((p) => !p.endsWith('.db') && !p.includes('.db-'));

describe('raw format: big uploads through the spool', () => {
  it('stores a body of several write batches byte for byte, sent with Content-Length or chunked', async () => {
    await rawServer();
    const b = randomBytes(5 * 1024 * 1024 + 321);
    for (const [path, chunked] of [['cl.bin', false], ['chunked.bin', true]] as const) {
      const status = await new Promise<number>((resolve, reject) => {
        const headers: Record<string, string | number> = { Authorization: basic('pub') };
        if (chunked) headers['Transfer-Encoding'] = 'chunked';
        else headers['Content-Length'] = b.length;
        const req = request(`${s.url}/raw/files/${path}`, { method: 'PUT', headers }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        for (let at = 0; at < b.length; at += 100_000) req.write(b.subarray(at, at + 100_000));
        req.end();
      });
      expect(status).toBe(201);
      const got = Buffer.from(await (await fetch(`${s.url}/raw/files/${path}`)).arrayBuffer());
      expect(got.equals(b)).toBe(true);
    }
    const asset = s.ctx.assets.get(s.ctx.repos.byName('files')!, 'cl.bin')!;
    expect(asset.sha256).toBe(createHash('sha256').update(b).digest('hex'));
    expect(asset.sha1).toBe(createHash('sha1').update(b).digest('hex'));
  });

  it('keeps nothing and holds no file open when the client leaves mid-upload, and keeps serving', async () => {
    await rawServer();
    const announced = 8 * 1024 * 1024;
    await new Promise<void>((resolve) => {
      const req = request(`${s.url}/raw/files/left.bin`, { method: 'PUT', headers: { Authorization: basic('pub'), 'Content-Length': announced } });
      req.on('error', () => resolve()); // our own destroy
      req.write(randomBytes(3 * 1024 * 1024), () => {
        // the server is mid-body with the spool file open; give it a moment to take the bytes, then leave
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100);
      });
    });
    await eventually(() => readdirSync(join(s.dataDir, 'spool')).length === 0, 'the spool is empty');
    await eventually(() => openUnderData().length === 0, 'no spool or blob file is open');
    expect((await fetch(`${s.url}/raw/files/left.bin`)).status).toBe(404);
    const ok = await fetch(`${s.url}/raw/files/after.bin`, { method: 'PUT', body: 'still here', headers: { Authorization: basic('pub') } });
    expect(ok.status).toBe(201);
  });
});

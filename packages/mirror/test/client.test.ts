import { mkdtempSync, readdirSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Spool } from '@trove/blobstore';
import { NexusClient, NexusError, type NexusAsset } from '../src/nexus/client.js';
import { NexusDouble } from '../src/testing/nexus-double.js';

let nexus: NexusDouble;
let spool: Spool;
beforeEach(async () => {
  nexus = await NexusDouble.start();
  spool = new Spool(mkdtempSync(join(tmpdir(), 'mirror-spool-')));
  await spool.init();
});
afterEach(() => nexus.close());

const client = (over: Partial<{ password: string; baseUrl: string; timeoutMs: number }> = {}) =>
  new NexusClient({ baseUrl: over.baseUrl ?? nexus.url, username: 'admin', password: over.password ?? 'admin123' }, { backoffMs: 5, timeoutMs: over.timeoutMs ?? 5_000 });

async function list(c: NexusClient, repo: string): Promise<NexusAsset[]> {
  const out: NexusAsset[] = [];
  for await (const page of c.assets(repo)) out.push(...page.items);
  return out;
}

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('NexusClient', () => {
  it('tells refused credentials from an unreachable source', async () => {
    await expect(client({ password: 'wrong' }).check()).rejects.toMatchObject({ kind: 'refused' });
    await expect(client({ baseUrl: `http://127.0.0.1:${await closedPort()}` }).check()).rejects.toMatchObject({ kind: 'unreachable' });
    await client().check();
  });

  it('enumerates every page, strips leading slashes and survives a flapping listing', async () => {
    nexus.addRepo('r', 'raw');
    for (let i = 0; i < 300; i++) nexus.put('r', `d/${i}`, `c${i}`);
    nexus.knobs.pathStyle = 'mixed';
    nexus.knobs.flapListing = 3;
    const items = await list(client(), 'r');
    expect(items).toHaveLength(300);
    expect(new Set(items.map((i) => i.path)).size).toBe(300);
    expect(items.every((i) => !i.path.startsWith('/'))).toBe(true);
    expect(nexus.stats.listingRequests).toBe(3 + 4);
  });

  it('throws instead of ending early when a page keeps failing', async () => {
    nexus.addRepo('r', 'raw');
    for (let i = 0; i < 150; i++) nexus.put('r', `${i}`, 'x');
    nexus.knobs.breakListingAfterFirstPage = true;
    await expect(list(client(), 'r')).rejects.toMatchObject({ kind: 'status', status: 500 });
  });

  it('downloads into the spool with the hashes the source declared, and refuses a foreign downloadUrl unfetched', async () => {
    nexus.addRepo('r', 'raw').put('r', 'a/b.txt', 'hello').put('r', 'c.txt', 'evil');
    nexus.knobs.foreignDownloadUrls.add('r/c.txt');
    const c = client();
    const [a, evil] = await list(c, 'r');
    const file = await c.download('r', a!, spool, { maxBytes: 1000 });
    expect(file.hashes.sha1).toBe(createHash('sha1').update('hello').digest('hex'));
    expect(file.hashes.sha512).toBe(a!.checksum.sha512);
    expect((await readFile(file.path)).toString()).toBe('hello');
    await file.dispose();
    await expect(c.download('r', evil!, spool, { maxBytes: 1000 })).rejects.toBeInstanceOf(NexusError);
    expect(nexus.stats.foreignHits).toBe(0);
  });

  it('refuses at once a download that is not the size the source listed, small (held in memory) or large (streamed)', async () => {
    const big = Buffer.alloc(200 * 1024, 7); // past the in-memory limit: the streaming path
    nexus.addRepo('r', 'raw').put('r', 'short', 'twelve bytes').put('r', 'long', 'twelve bytes').put('r', 'big-short', big).put('r', 'big-long', big);
    for (const [path, delta] of [['short', -1], ['long', 1], ['big-short', -1], ['big-long', 1]] as const) nexus.knobs.wrongSizeDownloads.set(`r/${path}`, delta);
    const c = new NexusClient({ baseUrl: nexus.url, username: 'admin', password: 'admin123' }, { backoffMs: 5, retries: 1 });
    for (const asset of await list(c, 'r')) {
      await expect(c.download('r', asset, spool, { maxBytes: 1 << 20 }), asset.path).rejects.toMatchObject({ kind: 'changed', message: expect.stringMatching(/changed at the source since it was listed/) });
      expect(nexus.downloads('r', asset.path), asset.path).toBe(1); // the blob was replaced: another try gets the same
    }
    expect(readdirSync(spool.dir)).toEqual([]);
  });

  it('retries a download whose connection breaks off mid-body, small or large, and keeps nothing of it', async () => {
    nexus.addRepo('r', 'raw').put('r', 'small', Buffer.alloc(30 * 1024, 1)).put('r', 'large', Buffer.alloc(300 * 1024, 2));
    nexus.knobs.brokenDownloads.add('r/small').add('r/large');
    const c = new NexusClient({ baseUrl: nexus.url, username: 'admin', password: 'admin123' }, { backoffMs: 5, retries: 1 });
    for (const asset of await list(c, 'r')) {
      await expect(c.download('r', asset, spool, { maxBytes: 1 << 20 }), asset.path).rejects.toMatchObject({ kind: 'unreachable' });
      expect(nexus.downloads('r', asset.path), asset.path).toBe(2);
    }
    expect(readdirSync(spool.dir)).toEqual([]);
  });

  it('lets a large body that keeps coming take longer than the timeout in all, and gives up when it stops', async () => {
    const big = Buffer.alloc(256 * 1024, 3); // past the in-memory limit: the streaming path
    nexus.addRepo('r', 'raw').put('r', 'steady', big).put('r', 'stalled', big);
    nexus.knobs.trickleMs.set('r/steady', 50); // 16 pieces, 800 ms in all, never 300 ms silent
    nexus.knobs.trickleMs.set('r/stalled', 1_000);
    const c = new NexusClient({ baseUrl: nexus.url, username: 'admin', password: 'admin123' }, { backoffMs: 5, timeoutMs: 300, retries: 0 });
    const [steady, stalled] = await list(c, 'r');
    const file = await c.download('r', steady!, spool, { maxBytes: 1 << 20 });
    expect(file.size).toBe(big.length);
    await file.dispose();
    await expect(c.download('r', stalled!, spool, { maxBytes: 1 << 20 })).rejects.toMatchObject({ kind: 'timeout' });
    expect(readdirSync(spool.dir)).toEqual([]);
  });

  it('gives up on a body that stalls longer than the timeout', async () => {
    nexus.addRepo('r', 'raw').put('r', 'slow', 'zzz');
    nexus.knobs.downloadDelayMs = 1_000;
    const c = new NexusClient({ baseUrl: nexus.url, username: 'admin', password: 'admin123' }, { backoffMs: 5, timeoutMs: 200, retries: 1 });
    const [slow] = await list(c, 'r');
    await expect(c.download('r', slow!, spool, { maxBytes: 1000 })).rejects.toMatchObject({ kind: 'timeout' });
    expect(nexus.downloads('r', 'slow')).toBe(2);
  });
  it("follows the caller's signal and leaves nothing on it: a sync's signal outlives every download of the sync", async () => {
    nexus.addRepo('r', 'raw').put('r', 'a', 'one').put('r', 'slow', 'two');
    const c = client();
    const [a, slow] = await list(c, 'r');
    const sync = new AbortController();
    for (let i = 0; i < 50; i++) await (await c.download('r', a!, spool, { maxBytes: 100, signal: sync.signal })).dispose();
    expect(getEventListeners(sync.signal, 'abort')).toHaveLength(0);
    // AbortSignal.any would keep each combined signal in a set on its source (Node's kDependantSignals) until the source is collected.
    const dependants = Object.getOwnPropertySymbols(sync.signal).find((sym) => sym.description === 'kDependantSignals');
    expect(dependants ? (sync.signal as unknown as Record<symbol, Set<unknown>>)[dependants]!.size : 0).toBe(0);

    nexus.knobs.downloadDelayMs = 2_000;
    const started = Date.now();
    const pending = c.download('r', slow!, spool, { maxBytes: 100, signal: sync.signal });
    setTimeout(() => sync.abort(), 100);
    await expect(pending).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(nexus.downloads('r', 'slow')).toBe(1); // an abort is not retried
    expect(readdirSync(spool.dir)).toEqual([]);
  });
});

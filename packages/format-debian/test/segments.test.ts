import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, inflateRawSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import type { DebianInstance } from '../src/index.js';
import { aptDownload } from './apt-run.js';
import { debServer, get, makeDeb, settled, upload, work } from './helpers.js';

let s: TestServer;
let other: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await other?.close();
  other = undefined;
});

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const bytes = async (server: TestServer, path: string) => {
  const r = await get(server, `debian/apt/dists/stable/${path}`);
  expect(r.status, path).toBe(200);
  return Buffer.from(await r.arrayBuffer());
};

/** A package whose paragraph is about 20 KiB, so a few of them fill a segment (64 KiB). */
const bigDeb = (name: string, arch = 'amd64') =>
  makeDeb({
    name,
    version: '1.0',
    arch,
    extraControl: 'X-Notes: padding\n' + Array.from({ length: 300 }, (_, i) => ` line ${i} of ${name}, long enough to make this paragraph large`).join('\n'),
  });

/** Members of a gzip file as Node's zlib writes them (10-byte header without optional fields). */
function gzipMembers(buf: Buffer): number {
  let pos = 0;
  let n = 0;
  while (pos < buf.length) {
    expect(buf.subarray(pos, pos + 4)).toEqual(Buffer.from([0x1f, 0x8b, 0x08, 0x00]));
    pos += 10 + inflateRawSync(buf.subarray(pos + 10), { info: true } as any).engine.bytesWritten + 8;
    n++;
  }
  return n;
}

/** `xz --list` in robot mode: [streams, blocks] of an .xz file. */
function xzLayout(buf: Buffer): [number, number] {
  const file = join(mkdtempSync(join(work, 'xz-')), 'Packages.xz');
  writeFileSync(file, buf);
  const out = execFileSync('xz', ['--robot', '--list', file]).toString();
  const row = out.split('\n').find((l) => l.startsWith('file\t'))!.split('\t');
  return [Number(row[1]), Number(row[2])];
}
const unxz = (buf: Buffer) => execFileSync('xz', ['-dc'], { input: buf, maxBuffer: 1 << 26 });

/** Every file Release names is served with that size and SHA256. */
async function checkRelease(server: TestServer) {
  const release = (await bytes(server, 'Release')).toString();
  const entries = [...release.matchAll(/^ ([0-9a-f]{64}) +(\d+) (\S+)$/gm)];
  expect(entries.length).toBeGreaterThan(0);
  for (const [, hash, size, path] of entries) {
    const body = await bytes(server, path!);
    expect(sha256(body), path).toBe(hash);
    expect(body.length, path).toBe(Number(size));
  }
  return release;
}

const lastBuild = (server: TestServer) => server.instance<DebianInstance>('debian').state.lastBuilds.at(-1)!.result;
/** Indexes are built when the test says so (flush), so it knows which uploads one build takes in. */
const quietServer = () => debServer({ env: { TR_DEB_DEBOUNCE: '10m', TR_DEB_MAX_DELAY: '1h' } });
const build = async (server: TestServer) => {
  await server.instance<DebianInstance>('debian').state.rebuilder.flush();
  await settled(server, 'apt');
};

describe('segmented Packages indexes', () => {
  it('lets apt install a package from the last segment of a multi-segment Packages.xz, and of Packages.gz', async () => {
    s = await quietServer();
    for (let i = 0; i < 14; i++) expect((await upload(s, 'apt', 'stable', 'main', bigDeb(`seg-${String(i).padStart(2, '0')}`))).status).toBe(201);
    const last = bigDeb('zz-last');
    expect((await upload(s, 'apt', 'stable', 'main', last)).status).toBe(201);
    await build(s);

    const packages = await bytes(s, 'main/binary-amd64/Packages');
    const xz = await bytes(s, 'main/binary-amd64/Packages.xz');
    const gz = await bytes(s, 'main/binary-amd64/Packages.gz');
    const [streams, blocks] = xzLayout(xz);
    expect(streams).toBe(1);
    expect(blocks).toBeGreaterThanOrEqual(4);
    expect(gzipMembers(gz)).toBe(blocks);
    expect(unxz(xz).equals(packages)).toBe(true);
    expect(gunzipSync(gz).equals(packages)).toBe(true);
    // zz-last is in the last segment: after the first block's worth of text.
    expect(packages.toString().lastIndexOf('Package: zz-last')).toBeGreaterThan(packages.length - 25_000);
    await checkRelease(s);
    const digests = (b: Buffer) => ['md5', 'sha256', 'sha512'].map((a) => createHash(a).update(b).digest('hex'));
    const served = { xz: digests(xz), gz: digests(gz) };

    for (const type of ['xz', 'gz'] as const) {
      const r = await aptDownload(s.url, 'apt', 'stable', 'zz-last', [`Acquire::CompressionTypes::Order::=${type}`]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/^(W|E):/m);
      expect(readFileSync(r.deb!).equals(readFileSync(last))).toBe(true);
      // apt fetched this compression (by hash, as Release allows) and no other form of the index:
      // it read every segment of it, or it would not have found zz-last.
      const indexRequests = r.requests.filter((p) => p.includes('/binary-amd64/'));
      expect(indexRequests, type).toHaveLength(1);
      const [, hash] = /\/by-hash\/(?:MD5Sum|SHA256|SHA512)\/([0-9a-f]+)$/.exec(indexRequests[0]!)!;
      expect(served[type], type).toContain(hash);
    }
  });

  it('recompresses only the segment an upload lands in, and joins the same Packages a fresh build writes', async () => {
    s = await quietServer();
    const names = Array.from({ length: 12 }, (_, i) => `pkg-${String(i * 2).padStart(2, '0')}`);
    const debs = new Map(names.map((n) => [n, bigDeb(n)]));
    for (const n of names) await upload(s, 'apt', 'stable', 'main', debs.get(n)!);
    await build(s);
    const before = lastBuild(s).segments['main/amd64']!;
    expect(before.segments).toBeGreaterThanOrEqual(3);
    const total = (await bytes(s, 'main/binary-amd64/Packages')).length;

    debs.set('pkg-11', bigDeb('pkg-11'));
    await upload(s, 'apt', 'stable', 'main', debs.get('pkg-11')!);
    await build(s);
    expect(lastBuild(s).segments['main/amd64']).toEqual({ segments: before.segments, rebuilt: 1 });
    expect(lastBuild(s).rebuiltUnits).toEqual(['main/amd64']);

    const packages = await bytes(s, 'main/binary-amd64/Packages');
    expect(packages.length).toBeGreaterThan(total);
    expect([...packages.toString().matchAll(/^Package: (\S+)$/gm)].map((m) => m[1])).toEqual([...debs.keys()].sort());
    expect(unxz(await bytes(s, 'main/binary-amd64/Packages.xz')).equals(packages)).toBe(true);
    expect(gunzipSync(await bytes(s, 'main/binary-amd64/Packages.gz')).equals(packages)).toBe(true);
    await checkRelease(s);

    // The same packages uploaded to a fresh server at once: one full cut, the same text.
    other = await quietServer();
    for (const n of [...debs.keys()].sort()) await upload(other, 'apt', 'stable', 'main', debs.get(n)!);
    await build(other);
    expect((await bytes(other, 'main/binary-amd64/Packages')).equals(packages)).toBe(true);
  });

  it('splits a segment that outgrew its bound, keeps the previous generation by hash and drops segments no generation names', async () => {
    s = await quietServer();
    await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'small', version: '1.0' }));
    await build(s);
    expect(lastBuild(s).segments['main/amd64']).toEqual({ segments: 1, rebuilt: 1 });
    const oldXz = await bytes(s, 'main/binary-amd64/Packages.xz');
    const oldGz = await bytes(s, 'main/binary-amd64/Packages.gz');
    // An empty unit (arm64 is configured, nothing uploaded): an empty gzip member and an xz stream without blocks.
    expect(gunzipSync(await bytes(s, 'main/binary-arm64/Packages.gz')).length).toBe(0);
    expect(unxz(await bytes(s, 'main/binary-arm64/Packages.xz')).length).toBe(0);

    // One build takes ten big packages into the one segment: 200 KiB, split in pieces.
    for (let i = 0; i < 10; i++) await upload(s, 'apt', 'stable', 'main', bigDeb(`big-${i}`));
    await build(s);
    const split = lastBuild(s).segments['main/amd64']!;
    expect(split.segments).toBeGreaterThanOrEqual(3);
    expect(split.rebuilt).toBe(split.segments);
    const packages = await bytes(s, 'main/binary-amd64/Packages');
    expect([...packages.toString().matchAll(/^Package: (\S+)$/gm)].map((m) => m[1])).toEqual([...Array.from({ length: 10 }, (_, i) => `big-${i}`), 'small']);
    expect(xzLayout(await bytes(s, 'main/binary-amd64/Packages.xz'))).toEqual([1, split.segments]);
    expect(unxz(await bytes(s, 'main/binary-amd64/Packages.xz')).equals(packages)).toBe(true);
    await checkRelease(s);

    // The previous generation's files are still served by hash (their segments are kept) ...
    for (const old of [oldXz, oldGz]) {
      const r = await get(s, `debian/apt/dists/stable/main/binary-amd64/by-hash/SHA256/${sha256(old)}`);
      expect(r.status).toBe(200);
      expect(Buffer.from(await r.arrayBuffer()).equals(old)).toBe(true);
    }
    // ... until a newer generation replaces it.
    await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'zzz', version: '1.0' }));
    await build(s);
    expect((await get(s, `debian/apt/dists/stable/main/binary-amd64/by-hash/SHA256/${sha256(oldXz)}`)).status).toBe(404);
    const sql = (s.ctx.db as any).$client;
    const stored = sql.prepare('SELECT count(*) AS n FROM deb_segments').get().n;
    const named = sql.prepare('SELECT count(DISTINCT j.value) AS n FROM deb_files f, json_each(f.segments) j').get().n;
    expect(stored).toBe(named);
  });

  it('cuts a unit into segments on its first change when it was stored as whole files', async () => {
    s = await debServer();
    await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'legacy', version: '1.0' }));
    await settled(s, 'apt');
    // What a generation published before segments existed looks like: Packages files as blobs.
    const sql = (s.ctx.db as any).$client;
    for (const { path } of sql.prepare('SELECT path FROM deb_files WHERE segments IS NOT NULL').all()) {
      const data = await bytes(s, path);
      sql.prepare('INSERT OR IGNORE INTO deb_blobs (sha256, data) VALUES (?, ?)').run(sha256(data), data);
      sql.prepare('UPDATE deb_files SET segments = NULL WHERE path = ?').run(path);
    }
    sql.prepare('DELETE FROM deb_segments').run();
    expect((await bytes(s, 'main/binary-amd64/Packages')).toString()).toMatch(/^Package: legacy$/m);

    await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'newer', version: '1.0' }));
    await settled(s, 'apt');
    expect(lastBuild(s).segments['main/amd64']).toEqual({ segments: 1, rebuilt: 1 });
    const packages = (await bytes(s, 'main/binary-amd64/Packages')).toString();
    expect([...packages.matchAll(/^Package: (\S+)$/gm)].map((m) => m[1])).toEqual(['legacy', 'newer']);
    await checkRelease(s);
  });
});

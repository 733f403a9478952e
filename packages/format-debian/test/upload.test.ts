import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import { basic, debServer, get, makeDeb, settled, upload } from './helpers.js';
import { arArchive, CONTROL, debWith, tarOf, xzOf, zstdHugeWindow, zstdOf } from './crafted.js';

let s: TestServer;
/** The process's (server and test alike) peak resident memory so far. */
const peakRssMiB = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
beforeAll(async () => {
  s = await debServer();
});
afterAll(() => s?.close());

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** This process's open descriptors on files under `dir` (the test server runs in it; a deleted file still shows its path). */
const openUnder = (dir: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
    } catch {
      return false;
    }
  });

describe('debian uploads', () => {
  it('answers 201 with the package identity and pool path, 200 for the identical package, 409 for different bytes', async () => {
    const deb = makeDeb({ name: 'hello', version: '1:2.10-3', arch: 'amd64' });
    let r = await upload(s, 'apt', 'stable', 'main', deb);
    expect(r.status).toBe(201);
    expect(await r.json()).toEqual({
      package: 'hello',
      version: '1:2.10-3',
      architecture: 'amd64',
      filename: 'pool/main/h/hello/hello_2.10-3_amd64.deb',
      sha256: sha256(readFileSync(deb)),
    });
    r = await upload(s, 'apt', 'stable', 'main', deb, 'pub-apt', 'POST');
    expect(r.status).toBe(200);
    const changed = makeDeb({ name: 'hello', version: '1:2.10-3', arch: 'amd64', payload: 'other bytes\n' });
    r = await upload(s, 'apt', 'stable', 'main', changed);
    expect(r.status).toBe(409);
    expect((await r.json()).error).toMatch(/hello 1:2\.10-3 \(amd64\) already exists/);
    // also refused in another distribution: the pool is shared
    expect((await upload(s, 'apt', 'testing', 'main', changed)).status).toBe(409);
    const pool = await get(s, 'debian/apt/pool/main/h/hello/hello_2.10-3_amd64.deb');
    expect(pool.status).toBe(200);
    expect(Buffer.from(await pool.arrayBuffer()).equals(readFileSync(deb))).toBe(true);
  });

  it('keeps one pool file when the same package is uploaded to two components at once, and answers the one the index names', async () => {
    for (const [name, second] of [['twin', undefined], ['rival', 'other bytes\n']] as const) {
      const a = makeDeb({ name, version: '1.0', arch: 'amd64' });
      const b = second ? makeDeb({ name, version: '1.0', arch: 'amd64', payload: second }) : a;
      const [ra, rb] = await Promise.all([upload(s, 'apt', 'pair', 'main', a), upload(s, 'apt', 'pair', 'contrib', b)]);
      const answers = await Promise.all([ra, rb].map(async (r) => ({ status: r.status, body: await r.json() })));
      await settled(s, 'apt');
      const index = (await Promise.all(['main', 'contrib'].map(async (c) => (await get(s, `debian/apt/dists/pair/${c}/binary-amd64/Packages`)).text()))).join('\n');
      const named = [...new Set([...index.matchAll(new RegExp(`^Filename: (pool/\\w+/\\w/${name}/\\S+)$`, 'gm'))].map((m) => m[1]))];
      expect(named, name).toHaveLength(1);
      for (const { status, body } of answers) if (status < 300) expect(body.filename, name).toBe(named[0]);
      if (second) expect(answers.map((x) => x.status).sort(), name).toEqual([201, 409]);
      const other = named[0]!.startsWith('pool/main/') ? named[0]!.replace('pool/main/', 'pool/contrib/') : named[0]!.replace('pool/contrib/', 'pool/main/');
      expect((await get(s, `debian/apt/${other}`)).status, `${name}: ${other}`).toBe(404);
      expect((await get(s, `debian/apt/${named[0]}`)).status, name).toBe(200);
    }
  });

  it('answers 201 when identical bytes join another distribution, then 200', async () => {
    const deb = makeDeb({ name: 'shared', version: '1.0' });
    expect((await upload(s, 'apt', 'stable', 'main', deb)).status).toBe(201);
    expect((await upload(s, 'apt', 'testing', 'main', deb)).status).toBe(201);
    expect((await upload(s, 'apt', 'testing', 'main', deb)).status).toBe(200);
  });

  it('files lib packages under lib + letter and uses the Source name for the pool directory', async () => {
    let r = await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'libwidget2', version: '3.1-1', source: 'widget (3.1-1)', arch: 'arm64' }));
    expect((await r.json()).filename).toBe('pool/main/w/widget/libwidget2_3.1-1_arm64.deb');
    r = await upload(s, 'apt', 'stable', 'contrib', makeDeb({ name: 'libzip-tools', version: '1.0', arch: 'all' }));
    expect((await r.json()).filename).toBe('pool/contrib/libz/libzip-tools/libzip-tools_1.0_all.deb');
  });

  it('reads gzip, xz, zstd and uncompressed control members', async () => {
    for (const compression of ['gzip', 'xz', 'zstd', 'none'] as const) {
      const r = await upload(s, 'apt', 'stable', 'main', makeDeb({ name: `comp-${compression}`, version: '1.0' }));
      expect(r.status, `${compression}: ${await r.clone().text()}`).toBe(201);
    }
    const tar = await tarOf([['./control', CONTROL]]);
    const r = await upload(s, 'apt', 'stable', 'main', debWith('control.tar.zst', zstdOf(tar)));
    expect(r.status, await r.clone().text()).toBe(201);
  });

  it('refuses invalid distribution and component names with 400', async () => {
    const deb = readFileSync(makeDeb({ name: 'names', version: '1.0' }));
    for (const [dist, comp] of [['bad%20dist', 'main'], ['stable', 'Main'], ['-x', 'main'], ['stable', 'by-hash'], ['a'.repeat(65), 'main']]) {
      const r = await fetch(`${s.url}/debian/apt/upload/${dist}/${comp}`, { method: 'PUT', body: deb, headers: { Authorization: basic('pub-apt') } });
      expect(r.status, `${dist}/${comp}`).toBe(400);
      expect((await r.json()).error).toBeTruthy();
    }
    expect((await fetch(`${s.url}/debian/apt/upload/stable`, { method: 'PUT', body: deb, headers: { Authorization: basic('pub-apt') } })).status).toBe(404);
  });

  it('refuses control files with an invalid Package, Version or Architecture with 400', async () => {
    const cases: [string, RegExp][] = [
      ['Package: Hello\nVersion: 1.0\nArchitecture: amd64\n', /Package/],
      ['Package: hello\nVersion: abc\nArchitecture: amd64\n', /Version/],
      ['Package: hello\nVersion: 1.0-\nArchitecture: amd64\n', /Version/],
      ['Package: hello\nVersion: 1.0_1\nArchitecture: amd64\n', /Version/],
      ['Package: hello\nVersion: x:1.0\nArchitecture: amd64\n', /Version/],
      ['Package: hello\nVersion: 1.0\nArchitecture: any\n', /Architecture/],
      ['Package: hello\nVersion: 1.0\nArchitecture: linux-any\n', /Architecture/], // wildcards belong in source packages
      ['Package: hello\nVersion: 1.0\nArchitecture: any-amd64\n', /Architecture/],
      ['Package: hello\nVersion: 1.0\n', /Architecture/],
      ['Package: hello\nVersion: 1.0\nArchitecture: amd64\n\nPackage: second\n', /paragraph/],
      ['Package: hello\nPackage: again\nVersion: 1.0\nArchitecture: amd64\n', /duplicate/],
      ['no colon here\n', /malformed/],
    ];
    for (const [control, message] of cases) {
      const tar = await tarOf([['./control', Buffer.from(control)]]);
      const r = await upload(s, 'apt', 'stable', 'main', debWith('control.tar.gz', gzipSync(tar)));
      expect(r.status, `${control}: ${await r.clone().text()}`).toBe(400);
      expect((await r.json()).error).toMatch(message);
    }
  });

  it('refuses crafted archives, tar bombs and huge control files with 400 and keeps nothing', async () => {
    const tar = await tarOf([['./control', CONTROL]]);
    const zeros = Buffer.alloc(40 * 1024 * 1024);
    const bombTar = await tarOf([['./padding', zeros], ['./control', CONTROL]]);
    const hugeControl = Buffer.concat([CONTROL, Buffer.from('X-Filler: ' + 'a'.repeat(2 * 1024 * 1024) + '\n')]);
    const cases: [string, Buffer, RegExp][] = [
      ['not an archive', Buffer.from('hello, I am not a package'), /ar signature/],
      ['empty body', Buffer.alloc(0), /ar signature/],
      ['wrong first member', arArchive([['control.tar.gz', gzipSync(tar)]]), /debian-binary/],
      ['unsupported format version', arArchive([['debian-binary', Buffer.from('3.0\n')], ['control.tar.gz', gzipSync(tar)]]), /version/],
      ['member past the end', arArchive([['debian-binary', Buffer.from('2.0\n')], ['control.tar.gz', gzipSync(tar)]], { lieAboutSize: 99999 }), /past the end|truncated/],
      ['no control member', arArchive([['debian-binary', Buffer.from('2.0\n')], ['data.tar.gz', gzipSync(tar)]]), /no control/],
      ['corrupt gzip', debWith('control.tar.gz', Buffer.from('\x1f\x8b\x08\x00garbage garbage garbage')), /unreadable|invalid/],
      ['corrupt xz', debWith('control.tar.xz', Buffer.from('\xfd7zXZ\x00garbage')), /xz|unreadable/],
      ['unknown compression', debWith('control.tar.bz2', Buffer.from('BZh9')), /unsupported/],
      ['gzip bomb', debWith('control.tar.gz', gzipSync(bombTar)), /larger than/],
      ['xz bomb', debWith('control.tar.xz', xzOf(bombTar)), /larger than/],
      ['zstd bomb', debWith('control.tar.zst', zstdOf(bombTar)), /larger than/],
      ['zstd window of 1 GiB', debWith('control.tar.zst', zstdHugeWindow(tar)), /window/],
      ['zstd window of 1 GiB in a second frame', debWith('control.tar.zst', Buffer.concat([zstdOf(Buffer.from('x')), zstdHugeWindow(tar)])), /window/],
      ['huge control file', debWith('control.tar.gz', gzipSync(await tarOf([['./control', hugeControl]]))), /control file is larger/],
      ['control tar without control', debWith('control.tar.gz', gzipSync(await tarOf([['./md5sums', Buffer.from('x')]]))), /no control file/],
      ['not a tar', debWith('control.tar.gz', gzipSync(Buffer.from('just text, not a tar archive at all'.repeat(20)))), /unreadable|control/],
    ];
    for (const [what, body, message] of cases) {
      const r = await upload(s, 'other', 'stable', 'main', body);
      expect(r.status, what).toBe(400);
      expect((await r.json()).error, what).toMatch(message);
    }
    expect(readdirSync(join(s.dataDir, 'spool'))).toEqual([]);
    expect(openUnder(join(s.dataDir, 'spool'))).toEqual([]);
    expect((await (await get(s, 'api/repos/other/assets')).json()).items).toEqual([]);
    expect((await (await get(s, 'api/repos/other/status')).json())).toEqual({ pending: 0 });
  });

  it('stops a zstd member of run-length blocks at the cap, before it expands: the server stays responsive and small', async () => {
    // 16,384 RLE blocks of 4 bytes, each "this byte 128 KiB times": 64 KiB that expand to 2 GiB.
    const blocks = Buffer.alloc(16_384 * 4);
    for (let i = 0; i < 16_384; i++) blocks.writeUIntLE(((128 * 1024) << 3) | (1 << 1) | (i === 16_383 ? 1 : 0), i * 4, 3);
    const member = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]), blocks]); // frame header: 128 KiB window
    const peakBefore = peakRssMiB();
    let stalls = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      stalls = Math.max(stalls, performance.now() - last);
      last = performance.now();
    }, 10);
    const r = await upload(s, 'other', 'stable', 'main', debWith('control.tar.zst', member));
    clearInterval(ticker);
    expect(r.status).toBe(400);
    expect((await r.json()).error).toMatch(/larger than/);
    expect(peakRssMiB() - peakBefore).toBeLessThan(256);
    expect(stalls).toBeLessThan(1000); // the event loop (the server's) was never held for long
  });

  it('writes only with a publish session for that repository', async () => {
    const deb = makeDeb({ name: 'guarded', version: '1.0' });
    let r = await upload(s, 'private', 'stable', 'main', deb, 'alice');
    expect(r.status).toBe(401);
    expect((await r.json()).error).toMatch(/publishing needs a publish session/);
    expect((await upload(s, 'private', 'stable', 'main', deb, 'pub-apt')).status).toBe(401);
    r = await fetch(`${s.url}/debian/apt/upload/stable/main`, { method: 'PUT', body: readFileSync(deb) });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('records the uploader on the pool file', async () => {
    await upload(s, 'private', 'stable', 'main', makeDeb({ name: 'audited', version: '1.0' }), 'pub-private');
    const list = await (await get(s, 'api/repos/private/assets', 'alice')).json();
    expect(list.items[0]).toMatchObject({ path: 'pool/main/a/audited/audited_1.0_amd64.deb', uploader: 'ci:acme/debs', content_type: 'application/vnd.debian.binary-package' });
    await settled(s, 'private');
  });
});

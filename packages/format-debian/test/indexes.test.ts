import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import { startTestServer } from '@trove/core/testing/server';
import { debianFormat, type DebianInstance } from '../src/index.js';
import { basic, debServer, get, makeDeb, settled, upload, work } from './helpers.js';

let s: TestServer;
afterEach(() => s?.close());
const text = async (path: string) => (await get(s, path)).text();
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('debian indexes', () => {
  it('keeps distributions apart, lists all packages in every architecture and reports pending until current', async () => {
    s = await debServer({ env: { TR_DEB_DEBOUNCE: '300ms' } });
    await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'only-stable', version: '1.0', arch: 'amd64' }));
    await upload(s, 'apt', 'testing', 'main', makeDeb({ name: 'only-testing', version: '1.0', arch: 'arm64' }));
    await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'noarch', version: '1.0', arch: 'all' }));
    expect((await (await get(s, 'api/repos/apt/status')).json()).pending).toBeGreaterThan(0);
    await settled(s, 'apt');
    const amd = await text('debian/apt/dists/stable/main/binary-amd64/Packages');
    const arm = await text('debian/apt/dists/stable/main/binary-arm64/Packages');
    expect(amd).toMatch(/^Package: noarch$/m);
    expect(amd).toMatch(/^Package: only-stable$/m);
    expect(arm).toMatch(/^Package: noarch$/m);
    expect(amd + arm).not.toMatch(/only-testing/);
    expect(await text('debian/apt/dists/testing/main/binary-arm64/Packages')).toMatch(/^Package: only-testing$/m);
    const release = await text('debian/apt/dists/stable/Release');
    for (const f of ['Origin: Trove', 'Label: apt', 'Suite: stable', 'Codename: stable', 'Architectures: amd64 arm64', 'Components: main', 'Acquire-By-Hash: yes', 'MD5Sum:', 'SHA256:', 'SHA512:']) expect(release).toContain(f);
    expect(release).toMatch(/^Date: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d UTC$/m);
    // every file named in Release matches what is served
    for (const m of release.matchAll(/^ ([0-9a-f]{64}) +(\d+) (\S+)$/gm)) {
      const body = Buffer.from(await (await get(s, `debian/apt/dists/stable/${m[3]}`)).arrayBuffer());
      expect(sha256(body), m[3]).toBe(m[1]);
      expect(body.length).toBe(Number(m[2]));
    }
  });

  it('gives every published generation a later Last-Modified: apt revalidates InRelease with If-Modified-Since alone', async () => {
    s = await debServer();
    expect((await upload(s, 'apt', 'quick', 'main', makeDeb({ name: 'first', version: '1.0' }))).status).toBe(201);
    await settled(s, 'apt');
    const g1 = await get(s, 'debian/apt/dists/quick/InRelease');
    const signed1 = await g1.text();
    expect((await upload(s, 'apt', 'quick', 'main', makeDeb({ name: 'second', version: '1.0' }))).status).toBe(201);
    await settled(s, 'apt'); // 50 ms of debounce: usually within the same second
    const g2 = await get(s, 'debian/apt/dists/quick/InRelease', undefined, { 'If-Modified-Since': g1.headers.get('last-modified')! });
    expect(g2.status).toBe(200);
    expect(await g2.text()).not.toBe(signed1);
  });

  it('answers ranges, If-Range and HEAD on index files as on pool files', async () => {
    s = await debServer();
    await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'ranged', version: '1.0', arch: 'amd64' }));
    await settled(s, 'apt');
    const path = 'debian/apt/dists/stable/main/binary-amd64/Packages';
    const full = await get(s, path);
    const whole = Buffer.from(await full.arrayBuffer());
    const etag = full.headers.get('etag')!;
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    const part = await get(s, path, undefined, { Range: 'bytes=5-14', 'If-Range': etag });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 5-14/${whole.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(whole.subarray(5, 15));
    const stale = await get(s, path, undefined, { Range: 'bytes=5-14', 'If-Range': '"other"' });
    expect(stale.status).toBe(200);
    expect(Buffer.from(await stale.arrayBuffer())).toEqual(whole);
    expect((await get(s, path, undefined, { Range: `bytes=${whole.length}-` })).status).toBe(416);
    const head = await fetch(`${s.url}/${path}`, { method: 'HEAD', headers: { Range: 'bytes=-4' } });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-length')).toBe('4');
    expect(await head.text()).toBe('');
  });

  it('rebuilds only the changed unit and keeps the previous generation reachable by hash', async () => {
    s = await debServer();
    await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'first', version: '1.0', arch: 'amd64' }));
    await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'armonly', version: '1.0', arch: 'arm64' }));
    await settled(s, 'apt');
    const oldAmd = await text('debian/apt/dists/stable/main/binary-amd64/Packages');
    const armEtag = (await get(s, 'debian/apt/dists/stable/main/binary-arm64/Packages')).headers.get('etag');
    await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'second', version: '1.0', arch: 'amd64' }));
    await settled(s, 'apt');
    expect(s.instance<DebianInstance>('debian').state.lastBuilds.at(-1)!.result.rebuiltUnits).toEqual(['main/amd64']);
    expect((await get(s, 'debian/apt/dists/stable/main/binary-arm64/Packages')).headers.get('etag')).toBe(armEtag);
    expect(await text('debian/apt/dists/stable/main/binary-amd64/Packages')).toMatch(/Package: second/);
    const old = await get(s, `debian/apt/dists/stable/main/binary-amd64/by-hash/SHA256/${sha256(oldAmd)}`);
    expect(old.status).toBe(200);
    expect(await old.text()).toBe(oldAmd);
  });

  it('serves the public key anonymously and the signing-key API to admins only', async () => {
    s = await debServer({ fixtureKey: false });
    const key = await text('keys/debian.asc');
    expect(key).toMatch(/BEGIN PGP PUBLIC KEY BLOCK/);
    expect((await fetch(`${s.url}/api/settings/signing-key`, { headers: { Authorization: basic('alice') } })).status).toBe(403);
    const info = await (await fetch(`${s.url}/api/settings/signing-key`, { headers: { Authorization: basic('admin') } })).json();
    expect(info.public_key).toBe(key);
    expect(info.fingerprint).toMatch(/^[0-9A-F]{40}$/);
    const settings = await (await fetch(`${s.url}/api/settings`, { headers: { Authorization: basic('admin') } })).json();
    const item = settings.groups.flatMap((g: any) => g.settings).find((i: any) => i.key === 'signing.key');
    expect(item).toMatchObject({ value: { set: true }, env: null, read_only: true, secret: true });
    const r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: { Authorization: basic('admin'), 'Content-Type': 'application/json' }, body: JSON.stringify({ 'signing.key': 'x' }) });
    expect(r.status).toBe(400);
  });

  it('answers 409 to a key change while the key comes from gpg.key_file, and refuses to start when the file is missing', async () => {
    s = await debServer();
    const r = await fetch(`${s.url}/api/settings/signing-key`, { method: 'POST', headers: { Authorization: basic('admin'), 'Content-Type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(409);
    await s.close();
    await expect(startTestServer({ modules: [debianFormat], env: { TR_GPG_KEY_FILE: join(work, 'missing.asc') } })).rejects.toThrow(/does not exist/);
  });
});

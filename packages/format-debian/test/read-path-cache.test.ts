import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { removeImported } from '@trove/core';
import type { TestServer } from '@trove/core/testing/server';
import { debServer, get, makeDeb, settled, upload } from './helpers.js';

/**
 * Pool files are answered from memory once seen (docs/decisions.md, "Read-path caches"); dists/
 * files never are, since they change in Debian's own tables without an asset write. Each pool test
 * first proves the answer now comes from memory (no asset lookup), changes the file, and expects
 * the very next GET to see it.
 */
let s: TestServer;
beforeAll(async () => {
  s = await debServer();
});
afterAll(() => s?.close());

const bytes = async (r: Response) => Buffer.from(await r.arrayBuffer());

/** GETs `path` until an answer comes without an asset lookup (from memory), and returns its bytes. */
async function warm(path: string, password?: string): Promise<Buffer> {
  expect((await get(s, path, password)).status, path).toBe(200);
  const lookups = vi.spyOn(s.ctx.assets, 'get');
  try {
    const r = await get(s, path, password);
    expect(r.status, path).toBe(200);
    expect(lookups, `${path} answered from memory`).not.toHaveBeenCalled();
    expect(r.headers.get('content-security-policy')).toMatch(/^sandbox/);
    return bytes(r);
  } finally {
    lookups.mockRestore();
  }
}

/** Uploads a fresh package to `apt` stable/main; answers its pool URL and bytes. */
async function pooled(name: string, repo = 'apt'): Promise<{ url: string; path: string; deb: Buffer }> {
  const file = makeDeb({ name, version: '1.0' });
  const r = await upload(s, repo, 'stable', 'main', file);
  expect(r.status).toBe(201);
  const path = ((await r.json()) as { filename: string }).filename;
  return { url: `debian/${repo}/${path}`, path, deb: readFileSync(file) };
}

describe('debian read path from memory: a change applies on the very next GET', () => {
  it('a pool file removed (as a mirror removes it) answers 404', async () => {
    const { url, path, deb } = await pooled('cached-removed');
    expect((await warm(url)).equals(deb)).toBe(true);
    expect(await removeImported(s.ctx, { repo: s.ctx.repos.byName('apt')!, path })).toBe(true);
    await settled(s, 'apt'); // the pool file goes once the index without it is published
    expect((await get(s, url)).status).toBe(404);
  });

  it('a pool file replaced is served with its new bytes', async () => {
    const { url, path, deb } = await pooled('cached-replaced');
    expect((await warm(url)).equals(deb)).toBe(true);
    const replacement = readFileSync(makeDeb({ name: 'cached-replaced', version: '1.0', payload: 'rebuilt\n' }));
    await s.ctx.assets.commitBytes({ repo: s.ctx.repos.byName('apt')!, path, bytes: replacement, contentType: 'application/vnd.debian.binary-package', uploader: 'test', onExisting: 'replace' });
    expect((await bytes(await get(s, url))).equals(replacement)).toBe(true);
  });

  it('a private pool file read with a password: a removed permission answers 403 from the next GET on', async () => {
    const { url } = await pooled('cached-private', 'private');
    await warm(url, 'alice');
    expect((await get(s, url)).status).toBe(401);
    s.ctx.permissions.remove(s.ctx.repos.byName('private')!, 'alice');
    // Twice: the first GET resolves the password again, which must not bring the old answer back.
    for (let i = 0; i < 2; i++) expect((await get(s, url, 'alice')).status).toBe(403);
    s.ctx.permissions.set(s.ctx.repos.byName('private')!, 'alice', 'read');
  });

  it('dists/ indexes are never answered from memory: a package joining a distribution without any pool write shows at once', async () => {
    const first = makeDeb({ name: 'dists-first', version: '1.0' });
    const joiner = makeDeb({ name: 'dists-joiner', version: '1.0' });
    expect((await upload(s, 'other', 'stable', 'main', joiner)).status).toBe(201);
    expect((await upload(s, 'other', 'testing', 'main', first)).status).toBe(201);
    await settled(s, 'other');
    const packages = 'debian/other/dists/testing/main/binary-amd64/Packages';
    for (let i = 0; i < 3; i++) expect(await (await get(s, packages)).text()).not.toMatch(/^Package: dists-joiner$/m);
    // The same bytes join testing: the pool file exists already, so no asset row is written.
    expect((await upload(s, 'other', 'testing', 'main', joiner)).status).toBe(201);
    await settled(s, 'other');
    expect(await (await get(s, packages)).text()).toMatch(/^Package: dists-joiner$/m);
  });
});

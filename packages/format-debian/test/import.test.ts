import { createReadStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importAsset, removeImported } from '@trove/core';
import type { TestServer } from '@trove/core/testing/server';
import { debServer, get, makeDeb, settled, upload } from './helpers.js';

let s: TestServer;
afterEach(() => s?.close());

const spool = (path: string) => s.ctx.spool.receive(createReadStream(path), { maxBytes: 1 << 24, algorithms: ['sha1', 'md5'] });
const packages = async (dist: string) => (await get(s, `debian/apt/dists/${dist}/main/binary-amd64/Packages`)).text();

describe('imports (the mirror hook)', () => {
  it("ingests a .deb into config.distribution, skips the source's dists/ files, and takes a deleted package out of the index, then the pool", async () => {
    s = await debServer();
    const repo = await s.ctx.repos.update('apt', { config: { architectures: ['amd64'], distribution: 'bookworm' } });
    const deb = makeDeb({ name: 'mirrored', version: '1.0', arch: 'amd64' });
    const imported = await importAsset(s.ctx, { repo, path: 'pool/m/mirrored/mirrored_1.0_amd64.deb', file: await spool(deb), contentType: 'application/octet-stream', uploader: 'jane' });
    expect(imported).toEqual({ status: 'created', path: 'pool/main/m/mirrored/mirrored_1.0_amd64.deb' });
    const skipped = await importAsset(s.ctx, { repo, path: 'dists/bookworm/InRelease', file: await spool(deb), contentType: 'text/plain', uploader: 'jane' });
    expect(skipped).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/rebuilt and signed by Trove/) });
    await settled(s, 'apt');
    expect(await packages('bookworm')).toMatch(/^Package: mirrored$/m);
    expect(s.ctx.assets.get(repo, 'pool/main/m/mirrored/mirrored_1.0_amd64.deb')!.uploader).toBe('jane');

    expect(await removeImported(s.ctx, { repo, path: 'pool/main/m/mirrored/mirrored_1.0_amd64.deb' })).toBe(true);
    // Until the index without it is published, the index apt reads still names the file: it must still be there.
    expect(await packages('bookworm')).toMatch(/^Package: mirrored$/m);
    expect((await get(s, 'debian/apt/pool/main/m/mirrored/mirrored_1.0_amd64.deb')).status).toBe(200);
    await settled(s, 'apt');
    expect(await packages('bookworm')).not.toMatch(/mirrored/);
    expect((await get(s, 'debian/apt/pool/main/m/mirrored/mirrored_1.0_amd64.deb')).status).toBe(404);
  });
  it('keeps publishing a component whose last package was removed, empty: apt refuses a Release without hashes', async () => {
    s = await debServer();
    const repo = await s.ctx.repos.update('apt', { config: { architectures: ['amd64'] } });
    const pool = 'pool/main/o/only/only_1.0_amd64.deb';
    await importAsset(s.ctx, { repo, path: pool, file: await spool(makeDeb({ name: 'only', version: '1.0', arch: 'amd64' })), contentType: 'application/octet-stream', uploader: 'jane' });
    await settled(s, 'apt');
    expect(await removeImported(s.ctx, { repo, path: pool })).toBe(true);
    await settled(s, 'apt');
    const release = await (await get(s, 'debian/apt/dists/stable/Release')).text();
    expect(release).toMatch(/^Components: main$/m);
    expect(release).not.toMatch(/\n\n/); // one paragraph
    expect(release).toMatch(/^SHA256:\n( \S+ +\d+ \S+\n)*? [0-9a-f]{64} +0 main\/binary-amd64\/Packages$/m);
    const packagesFile = await get(s, 'debian/apt/dists/stable/main/binary-amd64/Packages');
    expect(packagesFile.status).toBe(200);
    expect(await packagesFile.text()).toBe('');
  });

  /**
   * The source deletes a package and adds it back. The re-import's file commit answers (its bytes are
   * already there) but its package is not named yet when the rebuild queued by the removal runs: a
   * slow store or a busy event loop leaves that gap. `afterGap` ends the commit once that rebuild has published.
   */
  async function reimportDuringRebuild(afterGap: 'answer' | 'fail') {
    s = await debServer();
    const repo = await s.ctx.repos.update('apt', { config: { architectures: ['amd64'] } });
    const deb = makeDeb({ name: 'flapping', version: '1.0', arch: 'amd64' });
    const pool = 'pool/main/f/flapping/flapping_1.0_amd64.deb';
    await importAsset(s.ctx, { repo, path: pool, file: await spool(deb), contentType: 'application/octet-stream', uploader: 'jane' });
    await settled(s, 'apt');
    expect(await removeImported(s.ctx, { repo, path: pool })).toBe(true);
    const commit = s.ctx.assets.commit.bind(s.ctx.assets);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let committed!: () => void;
    const inGap = new Promise<void>((r) => (committed = r));
    s.ctx.assets.commit = async (input) => {
      const result = await commit(input);
      committed();
      await gate;
      if (afterGap === 'fail') throw new Error('the store went away');
      return result;
    };
    const again = importAsset(s.ctx, { repo, path: pool, file: await spool(deb), contentType: 'application/octet-stream', uploader: 'jane' });
    await inGap;
    // The rebuild publishes the index without the package, then deletes the pool files it no longer names.
    for (let until = Date.now() + 10_000; /^Package: flapping$/m.test(await packages('stable')); ) {
      if (Date.now() > until) throw new Error('the index without the removed package was never published');
      await new Promise((r) => setTimeout(r, 20));
    }
    release();
    return { pool, again: await again.then((r) => r, (err: Error) => err) };
  }

  it('keeps a pool file whose package the source deletes and adds back while the rebuild that would delete it runs', async () => {
    const { pool, again } = await reimportDuringRebuild('answer');
    expect(again).toEqual({ status: 'created', path: pool });
    await settled(s, 'apt');
    expect(await packages('stable')).toMatch(/^Package: flapping$/m);
    expect((await get(s, `debian/apt/${pool}`)).status).toBe(200);
  });

  it('deletes that pool file after all when the re-import fails', async () => {
    const { pool, again } = await reimportDuringRebuild('fail');
    expect(again).toBeInstanceOf(Error);
    await settled(s, 'apt');
    expect(await packages('stable')).not.toMatch(/flapping/);
    expect((await get(s, `debian/apt/${pool}`)).status).toBe(404);
  });
});

describe('pool files no package names', () => {
  it('are deleted at the next start, once the indexes are published: a crash between the two commits leaves no file that blocks a re-upload', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trove-deb-orphan-'));
    s = await debServer({ dataDir });
    expect((await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'kept', version: '1.0' }))).status).toBe(201);
    // What a crash leaves between a file's commit and its package's (or a pool removal lost with the process).
    const repo = s.ctx.repos.require('apt');
    const orphanPath = 'pool/main/o/orphan/orphan_1.0_amd64.deb';
    await s.ctx.assets.commit({ repo, path: orphanPath, file: await spool(makeDeb({ name: 'orphan', version: '1.0' })), contentType: 'application/vnd.debian.binary-package', uploader: 'ci', onExisting: 'conflict' });
    await s.close();

    s = await debServer({ dataDir });
    await settled(s, 'apt');
    expect((await get(s, `debian/apt/${orphanPath}`)).status).toBe(404);
    expect((await get(s, 'debian/apt/pool/main/k/kept/kept_1.0_amd64.deb')).status).toBe(200);
    expect((await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'orphan', version: '1.0', payload: 'other bytes' }))).status).toBe(201);
    await settled(s, 'apt');
    expect(await packages('stable')).toMatch(/^Package: orphan$/m);
  });
});

import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { listingRows as listingRowsOf, mapFiles, readFile, startRig, syncOnce, waitSync, type Rig } from './harness.js';

/**
 * Syncs against listings a broken or hostile source hands out: unreadable and repeated entries,
 * endless and flapping pages, paths and download URLs a format route would refuse.
 */
let rig: Rig;
afterEach(() => rig?.close());

async function mirrored(files: Record<string, string | Buffer>, opts: Parameters<typeof startRig>[0] = {}) {
  rig = await startRig(opts);
  return mapFiles(rig, files);
}
const read = (path: string) => readFile(rig, path);
const sync = (id: string) => syncOnce(rig, id);
const listingRows = () => listingRowsOf(rig);

describe('mirror sync of a messy listing', () => {
  it('never takes a file the source lists unreadably for deleted at the source', async () => {
    const id = await mirrored({ a: '1', b: '2', c: '3' });
    await sync(id);
    // b is still at the source, listed with a field Trove cannot read; c is listed without a usable path.
    rig.nexus.knobs.unreadableEntries.set('files/b', 'field');
    rig.nexus.remove('files', 'a');
    const second = await sync(id);
    expect(second.repos[0]).toMatchObject({ listed: 2, fetched: 0, skipped_unchanged: 1, deleted: 1, failed: 1 });
    expect(await read('b')).toEqual({ status: 200, text: '2' });
    expect((await read('a')).status).toBe(404);
    rig.nexus.put('files', 'a', '1');
    rig.nexus.knobs.unreadableEntries.set('files/c', 'path');
    rig.nexus.remove('files', 'b');
    const third = await sync(id);
    expect(third.repos[0]).toMatchObject({ listed: 2, fetched: 1, deleted: 0, failed: 2 });
    expect(await read('b')).toEqual({ status: 200, text: '2' }); // gone at the source, but the listing was not whole
    expect(await read('c')).toEqual({ status: 200, text: '3' });
    const reasons = (await rig.api('GET', `/mirror/syncs/${third.id}/failures`)).body.items.map((f: any) => `${f.path}: ${f.reason}`);
    expect(reasons).toEqual([expect.stringMatching(/^\(unreadable listing entry\): .*without a usable path \(unreadable path\)/), expect.stringMatching(/^\(deletions\): not done/)]);
  });

  it('imports a file the source lists twice, unreadably and then readably', async () => {
    const id = await mirrored({ a: '1', b: '2' });
    rig.nexus.knobs.unreadableTwins.add('files/b');
    const done = await sync(id);
    // Its unreadable twin is no failure once the file is in: a failure would hold back metadata and the cut-over.
    expect(done.repos[0]).toMatchObject({ listed: 3, fetched: 2, failed: 0 });
    expect((await rig.api('GET', `/mirror/syncs/${done.id}/failures`)).body.items).toEqual([]);
    expect(await read('b')).toEqual({ status: 200, text: '2' });
    const cut = await rig.api('POST', `/mirror/sources/${id}/cutover`);
    expect(cut.status).toBe(202);
    expect(await waitSync(rig, cut.body.sync.id)).toMatchObject({ state: 'done', repos: [{ failed: 0 }] });
    expect((await rig.api('GET', `/mirror/sources/${id}`)).body.state).toBe('cut_over');
  });

  it('takes no failure from a spoiled repeat of a file or side file listed readably on an earlier page', async () => {
    rig = await startRig();
    rig.nexus.addRepo('releases', 'maven2');
    rig.nexus.put('releases', 'lib/1.0/lib-1.0.jar', 'jar bytes');
    rig.nexus.put('releases', 'lib/1.0/lib-1.0.jar.sha1', createHash('sha1').update('jar bytes').digest('hex'));
    for (let i = 0; i < 120; i++) rig.nexus.put('releases', `pad/1.0/f${i}.bin`, `x${i}`);
    rig.nexus.knobs.spoiledLater.add('releases/lib/1.0/lib-1.0.jar').add('releases/lib/1.0/lib-1.0.jar.sha1');
    const { body: s } = await rig.api('POST', '/mirror/sources', { name: 'nexus', base_url: rig.nexus.url, username: 'admin', password: 'admin123' });
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'releases', target: 'releases', create: true }]);
    const done = await sync(s.id);
    expect(done.repos[0]).toMatchObject({ listed: 124, fetched: 122, failed: 0 });
    expect((await rig.api('GET', `/mirror/syncs/${done.id}/failures`)).body.items).toEqual([]);
  });

  it('gives up on a listing that keeps promising more pages without a file it has not listed, and deletes nothing', async () => {
    const id = await mirrored({ a: '1', b: '2' });
    await sync(id);
    rig.nexus.remove('files', 'b');
    rig.nexus.knobs.endlessListing = true;
    const done = await sync(id);
    expect(done.repos[0]).toMatchObject({ state: 'failed', error: expect.stringMatching(/100 pages in a row without a file not listed before.*nothing was deleted/), deleted: 0 });
    expect(await read('b')).toEqual({ status: 200, text: '2' });
  });

  it('refuses and reports a downloadUrl on another port without fetching it', async () => {
    const id = await mirrored({ ok: 'ok', evil: 'evil' });
    rig.nexus.knobs.foreignDownloadUrls.add('files/evil');
    const done = await sync(id);
    expect(done.repos[0]).toMatchObject({ fetched: 1, failed: 1 });
    expect(rig.nexus.stats.foreignHits).toBe(0);
    const failures = await rig.api('GET', `/mirror/syncs/${done.id}/failures`);
    expect(failures.body.items[0]).toMatchObject({ path: 'evil', reason: expect.stringMatching(/downloadUrl points outside files on the source/) });
  });

  it('refuses paths a format route would refuse (traversal, empty segments, control characters, bidi overrides)', async () => {
    const id = await mirrored({ ok: 'ok', 'a/../../escape': 'x', 'a//b': 'y', 'c/\u0001d': 'z', 'e/\u202eexe.txt': 'w' });
    const done = await sync(id);
    expect(done.repos[0]).toMatchObject({ fetched: 1, failed: 4 });
    const first = await rig.api('GET', `/mirror/syncs/${done.id}/failures?limit=2`);
    const rest = await rig.api('GET', `/mirror/syncs/${done.id}/failures?limit=2&after=${first.body.next}`);
    expect(rest.body.next).toBe('');
    expect([...first.body.items, ...rest.body.items].map((f: any) => f.reason)).toEqual(Array(4).fill(expect.stringMatching(/^unsafe path/)));
    expect(rig.trove.ctx.db.$client.prepare('SELECT path FROM assets').all()).toEqual([{ path: 'ok' }]);
  });

  it('rides out a flapping listing, and deletes nothing when the listing stays broken', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 150; i++) files[`f${i}`] = `x${i}`;
    const id = await mirrored(files);
    rig.nexus.knobs.flapListing = 3;
    expect(await sync(id)).toMatchObject({ state: 'done', repos: [{ fetched: 150 }] });
    rig.nexus.knobs.breakListingAfterFirstPage = true;
    const broken = await sync(id);
    expect(broken).toMatchObject({ state: 'failed', error: expect.stringMatching(/could not list files/), repos: [{ state: 'failed', deleted: 0, error: expect.stringMatching(/nothing was deleted/) }] });
    const count = rig.trove.ctx.db.$client.prepare('SELECT count(*) AS n FROM assets').get() as { n: number };
    expect(count.n).toBe(150);
    expect(listingRows()).toBe(0);
  });
});

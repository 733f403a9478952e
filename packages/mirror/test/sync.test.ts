import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '@trove/core';
import { basic, debianDouble, eventually, listingRows as listingRowsOf, mapFiles, readFile, startRig, syncOnce, waitSync, type Rig } from './harness.js';

let rig: Rig;
afterEach(() => {
  debianDouble.removalDelayMs = 0;
  return rig?.close();
});

async function mirrored(files: Record<string, string | Buffer>, opts: Parameters<typeof startRig>[0] = {}) {
  rig = await startRig(opts);
  return mapFiles(rig, files);
}
const read = (path: string) => readFile(rig, path);
const sync = (id: string) => syncOnce(rig, id);

const listingRows = () => listingRowsOf(rig);

describe('mirror sync', () => {
  it('imports every file with its uploader name, verifies checksums, and counts per repository', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 250; i++) files[`dir/${i}.txt`] = `content ${i}`;
    const id = await mirrored(files);
    rig.nexus.knobs.pathStyle = 'mixed';
    const done = await sync(id);
    expect(done).toMatchObject({ state: 'done', trigger: 'manual', repos: [{ source_repo: 'files', target: 'files', state: 'done', listed: 250, fetched: 250, skipped_unchanged: 0, deleted: 0, failed: 0 }] });
    expect(done.repos[0].bytes).toBe(Object.values(files).reduce((n, c) => n + c.length, 0));
    expect(await read('dir/7.txt')).toEqual({ status: 200, text: 'content 7' });
    const asset = rig.trove.ctx.assets.get(rig.trove.ctx.repos.byName('files')!, 'dir/7.txt')!;
    expect(asset.sha256).toBe(createHash('sha256').update('content 7').digest('hex'));
    expect(asset.uploader).toBe('jane');
    const listing = await rig.api('GET', '/repos/files/assets?limit=1');
    expect(JSON.stringify(listing.body)).not.toContain('10.9.8.7');
    expect(JSON.stringify(rig.trove.ctx.db.$client.prepare('SELECT * FROM assets').all())).not.toContain('10.9.8.7');
  });

  it('answers 400 without mapped repositories and 409 while a sync runs; history is newest first', async () => {
    rig = await startRig();
    rig.nexus.addRepo('files', 'raw').put('files', 'a', 'a');
    const { body: s } = await rig.api('POST', '/mirror/sources', { name: 'n', base_url: rig.nexus.url, username: 'admin', password: 'admin123' });
    expect((await rig.api('POST', `/mirror/sources/${s.id}/sync`)).status).toBe(400);
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }]);
    rig.nexus.knobs.downloadDelayMs = 300;
    const first = await rig.api('POST', `/mirror/sources/${s.id}/sync`);
    expect((await rig.api('POST', `/mirror/sources/${s.id}/sync`)).status).toBe(409);
    expect((await rig.api('DELETE', `/mirror/sources/${s.id}`)).status).toBe(409);
    await waitSync(rig, first.body.id);
    const second = await sync(s.id);
    const history = await rig.api('GET', `/mirror/sources/${s.id}/syncs?limit=1`);
    expect(history.body.items.map((x: any) => x.id)).toEqual([second.id]);
    const older = await rig.api('GET', `/mirror/sources/${s.id}/syncs?limit=1&after=${history.body.next}`);
    expect(older.body).toMatchObject({ items: [{ id: first.body.id }], next: '' });
    expect((await rig.api('DELETE', `/mirror/syncs/${first.body.id}`)).status).toBe(409);
    expect((await rig.api('GET', '/mirror/syncs/999')).status).toBe(404);
    expect((await rig.api('GET', '/mirror/syncs/abc')).status).toBe(400);
  });

  it('fetches only what changed, and removes from the target what the source deleted', async () => {
    const id = await mirrored({ a: '1', b: '2', c: '3' });
    await sync(id);
    const before = rig.nexus.totalDownloads();
    rig.nexus.put('files', 'b', 'two').put('files', 'd', '4');
    rig.nexus.remove('files', 'c');
    const second = await sync(id);
    expect(second.repos[0]).toMatchObject({ listed: 3, fetched: 2, skipped_unchanged: 1, deleted: 1, failed: 0 });
    expect(rig.nexus.totalDownloads() - before).toBe(2);
    expect(await read('b')).toEqual({ status: 200, text: 'two' });
    expect((await read('c')).status).toBe(404);
    expect(await read('d')).toEqual({ status: 200, text: '4' });
    expect(listingRows()).toBe(0);
  });

  it('lists a lying checksum among the failures and never makes it visible', async () => {
    const id = await mirrored({ good: 'fine', bad: 'tampered?' });
    rig.nexus.knobs.lyingChecksums.add('files/bad');
    const done = await sync(id);
    expect(done.repos[0]).toMatchObject({ fetched: 1, failed: 1 });
    expect((await read('bad')).status).toBe(404);
    const failures = await rig.api('GET', `/mirror/syncs/${done.id}/failures`);
    expect(failures.body).toMatchObject({ items: [{ source_repo: 'files', path: 'bad', reason: expect.stringMatching(/checksum mismatch: the source declares sha1/) }], next: '' });
  });

  it('verifies what older blobs declare (sha1 and md5 only), and checks Maven side files against the file they describe', async () => {
    rig = await startRig();
    rig.nexus.addRepo('releases', 'maven2').addRepo('files', 'raw');
    const wrongMd5 = '00000000000000000000000000000000  other.jar';
    rig.nexus.put('releases', 'old.bin', 'from 2015', { legacyChecksums: true });
    rig.nexus.put('releases', 'lib.jar.sha1', createHash('sha1').update('jar bytes').digest('hex')); // listed before its file
    rig.nexus.put('releases', 'lib.jar', 'jar bytes');
    rig.nexus.put('releases', 'other.jar', 'other');
    rig.nexus.put('releases', 'other.jar.md5', wrongMd5);
    // In a raw repository a .md5 is a file like any other.
    rig.nexus.put('files', 'other.jar', 'other').put('files', 'other.jar.md5', wrongMd5);
    const { body: s } = await rig.api('POST', '/mirror/sources', { name: 'nexus', base_url: rig.nexus.url, username: 'admin', password: 'admin123' });
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [
      { source_repo: 'releases', target: 'releases', create: true },
      { source_repo: 'files', target: 'files', create: true },
    ]);
    const done = await sync(s.id);
    expect(done.repos).toMatchObject([
      { source_repo: 'files', listed: 2, fetched: 2, failed: 0 },
      { source_repo: 'releases', listed: 5, fetched: 4, failed: 1 },
    ]);
    const maven = (path: string) => fetch(`${rig.trove.url}/maven/releases/${path}`, { headers: { Authorization: basic('admin') } }).then((r) => r.status);
    expect(await maven('old.bin')).toBe(200);
    expect(await maven('lib.jar.sha1')).toBe(200);
    expect(await maven('other.jar.md5')).toBe(404);
    expect(await read('other.jar.md5')).toEqual({ status: 200, text: wrongMd5 });
    const page1 = await rig.api('GET', `/mirror/syncs/${done.id}/failures?limit=1`);
    expect(page1.body).toMatchObject({ items: [{ path: 'other.jar.md5', reason: expect.stringMatching(/side file disagrees with other.jar/) }], next: '' });
  });

  it('imports Maven metadata only once the files it names are in', async () => {
    rig = await startRig();
    rig.nexus.addRepo('releases', 'maven2');
    const dir = 'org/acme/w/1.0-SNAPSHOT';
    const jar = `${dir}/w-1.0-20261124.120000-1.jar`;
    rig.nexus.put('releases', jar, Buffer.alloc(256 * 1024, 1));
    rig.nexus.put('releases', `${dir}/maven-metadata.xml`, `<metadata><versioning><snapshotVersions><snapshotVersion><value>1.0-20261124.120000-1</value></snapshotVersion></snapshotVersions></versioning></metadata>`);
    rig.nexus.knobs.trickleMs.set(`releases/${jar}`, 20); // the jar takes about 300 ms, the metadata none
    const { body: s } = await rig.api('POST', '/mirror/sources', { name: 'nexus', base_url: rig.nexus.url, username: 'admin', password: 'admin123' });
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'releases', target: 'releases', create: true }]);
    const status = (path: string) => fetch(`${rig.trove.url}/maven/releases/${path}`, { headers: { Authorization: basic('admin') } }).then((r) => r.status);
    const started = await rig.api('POST', `/mirror/sources/${s.id}/sync`);
    let metadataBeforeJar = 0;
    let polls = 0;
    for (;;) {
      const [meta, file] = [await status(`${dir}/maven-metadata.xml`), await status(jar)];
      polls++;
      if (meta === 200 && file !== 200) metadataBeforeJar++;
      if (meta === 200 && file === 200) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(polls).toBeGreaterThan(5); // the sync was watched while it ran
    expect(metadataBeforeJar).toBe(0);
    expect(await waitSync(rig, started.body.id)).toMatchObject({ state: 'done', repos: [{ fetched: 2, failed: 0 }] });
  });

  it('holds Maven metadata back while a file under it failed, and imports it once that file is in', async () => {
    rig = await startRig();
    rig.nexus.addRepo('releases', 'maven2');
    rig.nexus.put('releases', 'org/acme/w/1.0/w-1.0.jar', 'jar one');
    rig.nexus.put('releases', 'org/acme/w/2.0/w-2.0.jar', 'jar two');
    const metadata = 'org/acme/w/maven-metadata.xml';
    rig.nexus.put('releases', metadata, '<metadata><versioning><versions><version>1.0</version><version>2.0</version></versions></versioning></metadata>');
    rig.nexus.put('releases', 'org/other/x/maven-metadata.xml', '<metadata/>');
    rig.nexus.knobs.lyingChecksums.add('releases/org/acme/w/2.0/w-2.0.jar');
    const { body: s } = await rig.api('POST', '/mirror/sources', { name: 'nexus', base_url: rig.nexus.url, username: 'admin', password: 'admin123' });
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'releases', target: 'releases', create: true }]);
    const status = (path: string) => fetch(`${rig.trove.url}/maven/releases/${path}`, { headers: { Authorization: basic('admin') } }).then((r) => r.status);

    const first = await sync(s.id);
    expect(first.repos[0]).toMatchObject({ fetched: 2, failed: 2 });
    const failures = (await rig.api('GET', `/mirror/syncs/${first.id}/failures`)).body.items.map((f: any) => [f.path, f.reason]);
    expect(failures).toEqual([
      ['org/acme/w/2.0/w-2.0.jar', expect.stringMatching(/checksum mismatch/)],
      [metadata, expect.stringMatching(/held back: org\/acme\/w\/2.0\/w-2.0.jar was not imported/)],
    ]);
    expect(await status(metadata)).toBe(404); // it would name a version whose jar answers 404
    expect(await status('org/other/x/maven-metadata.xml')).toBe(200);

    rig.nexus.knobs.lyingChecksums.clear();
    const second = await sync(s.id);
    expect(second.repos[0]).toMatchObject({ fetched: 2, failed: 0 });
    expect(await status(metadata)).toBe(200);
    expect(await status('org/acme/w/2.0/w-2.0.jar')).toBe(200);
  });

  it('keeps a file two source paths land in until the last of them is gone', async () => {
    rig = await startRig();
    rig.nexus.addRepo('apt', 'apt', 'hosted', { distribution: 'bookworm' });
    const deb = 'the same package bytes';
    const pool = `pool/${createHash('sha256').update(deb).digest('hex')}.deb`;
    rig.nexus.put('apt', 'greet-1.0.deb', deb).put('apt', 'copy/greet-1.0.deb', deb);
    const { body: s } = await rig.api('POST', '/mirror/sources', { name: 'nexus', base_url: rig.nexus.url, username: 'admin', password: 'admin123' });
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'apt', target: 'apt', create: true }]);
    const status = () => fetch(`${rig.trove.url}/debian/apt/${pool}`, { headers: { Authorization: basic('admin') } }).then((r) => r.status);
    expect(await sync(s.id)).toMatchObject({ state: 'done', repos: [{ fetched: 2, failed: 0 }] });
    expect(await status()).toBe(200);
    // Renamed at the source: the new name is imported (identical), the old one goes, the file stays.
    rig.nexus.remove('apt', 'greet-1.0.deb');
    rig.nexus.put('apt', 'greet_1.0_amd64.deb', deb);
    expect(await sync(s.id)).toMatchObject({ repos: [{ fetched: 1, deleted: 1, failed: 0 }] });
    expect(await status()).toBe(200);
    rig.nexus.remove('apt', 'copy/greet-1.0.deb');
    expect(await sync(s.id)).toMatchObject({ repos: [{ deleted: 1 }] });
    expect(await status()).toBe(200);
    rig.nexus.remove('apt', 'greet_1.0_amd64.deb');
    expect(await sync(s.id)).toMatchObject({ repos: [{ deleted: 1 }] });
    expect(await status()).toBe(404);
  });

  it('does not cut over when the cut-over sync is cancelled during its deletions', async () => {
    rig = await startRig();
    rig.nexus.addRepo('apt', 'apt', 'hosted', { distribution: 'bookworm' });
    for (let i = 0; i < 60; i++) rig.nexus.put('apt', `p${i}.deb`, `package ${i}`);
    const { body: s } = await rig.api('POST', '/mirror/sources', { name: 'nexus', base_url: rig.nexus.url, username: 'admin', password: 'admin123' });
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'apt', target: 'apt', create: true }]);
    await sync(s.id);
    for (let i = 1; i < 60; i++) rig.nexus.remove('apt', `p${i}.deb`);
    debianDouble.removalDelayMs = 25; // 59 removals: about 1.5 s
    const cut = await rig.api('POST', `/mirror/sources/${s.id}/cutover`);
    await eventually(async () => (await rig.api('GET', `/mirror/syncs/${cut.body.sync.id}`)).body.repos[0]?.deleted > 5);
    expect(await rig.api('DELETE', `/mirror/syncs/${cut.body.sync.id}`)).toMatchObject({ status: 200, body: { state: 'cancelled' } });
    expect(await waitSync(rig, cut.body.sync.id)).toMatchObject({ state: 'cancelled' });
    expect((await rig.api('GET', `/mirror/sources/${s.id}`)).body.state).toBe('mirroring');
    expect((await rig.api('GET', '/repos/apt')).body.locked_by).toBe('nexus/apt');
  });

  it('keeps a content type only when it can be a response header', async () => {
    rig = await startRig();
    rig.nexus.addRepo('files', 'raw');
    rig.nexus.put('files', 'plain', 'a', { contentType: 'text/plain; charset=utf-8' });
    rig.nexus.put('files', 'control', 'b', { contentType: 'text/plain; x=\u0001' });
    rig.nexus.put('files', 'snowman', 'c', { contentType: 'text/plain; x=\u2603' });
    rig.nexus.put('files', 'smuggled', '<a href="https://evil.example">x</a>', { contentType: 'application/json; x=1, text/html' });
    const { body: s } = await rig.api('POST', '/mirror/sources', { name: 'nexus', base_url: rig.nexus.url, username: 'admin', password: 'admin123' });
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }]);
    expect(await sync(s.id)).toMatchObject({ state: 'done', repos: [{ fetched: 4, failed: 0 }] });
    // A browser reads the last type of a comma list: such bytes are served as a download, never as a page.
    const smuggled = await fetch(`${rig.trove.url}/raw/files/smuggled`, { headers: { Authorization: basic('admin') } });
    expect(smuggled.headers.get('content-disposition')).toMatch(/^attachment/);
    const typeOf = async (path: string) => {
      const res = await fetch(`${rig.trove.url}/raw/files/${path}`, { headers: { Authorization: basic('admin') } });
      return [res.status, res.headers.get('content-type')];
    };
    expect(await typeOf('plain')).toEqual([200, 'text/plain; charset=utf-8']);
    expect(await typeOf('control')).toEqual([200, 'application/octet-stream']);
    expect(await typeOf('snowman')).toEqual([200, 'application/octet-stream']);
  });

  it('cancels a running sync with DELETE', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`f${i}`] = `x${i}`;
    const id = await mirrored(files);
    rig.nexus.knobs.downloadDelayMs = 200;
    const started = await rig.api('POST', `/mirror/sources/${id}/sync`);
    const cancelled = await rig.api('DELETE', `/mirror/syncs/${started.body.id}`);
    expect(cancelled).toMatchObject({ status: 200, body: { state: 'cancelled' } });
    expect((await rig.api('DELETE', `/mirror/syncs/${started.body.id}`)).status).toBe(409);
    await eventually(async () => listingRows() === 0); // the cancelled run leaves no listing behind
  });

  it('keeps at most four large files per download slot waiting for a store slower than the source', async () => {
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 20; i++) files[`big/${i}.bin`] = Buffer.alloc(1_200_000, i); // over 1 MiB: fsynced in its own slot
    const id = await mirrored(files);
    rig.trove.ctx.settings.patch({ 'mirror.concurrency': 1 });
    // The fs driver behind 50 ms per put: a store far slower than the source on loopback (S3 across a network).
    const fs = rig.trove.ctx.blobs.driver;
    let waiting = 0;
    let most = 0;
    rig.trove.ctx.blobs.replaceDriver({
      ...fs,
      async put(key, source, opts) {
        most = Math.max(most, ++waiting);
        try {
          await new Promise((r) => setTimeout(r, 50));
          return await fs.put(key, source, opts);
        } finally {
          waiting--;
        }
      },
    });
    const done = await sync(id);
    expect(done).toMatchObject({ state: 'done', repos: [{ fetched: 20, failed: 0 }] });
    expect(most).toBeLessThanOrEqual(4); // each one a spool file of its full size on the local disk
    expect(await read('big/7.bin')).toEqual({ status: 200, text: files['big/7.bin']!.toString() });
  });

  it('resumes a sync interrupted by a restart without downloading again what it had', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`f${i}`] = `x${i}`;
    const id = await mirrored(files, { mirror: { client: { backoffMs: 5, timeoutMs: 5_000 } } });
    rig.trove.ctx.settings.patch({ 'mirror.concurrency': 2 });
    rig.nexus.knobs.downloadDelayMs = 60;
    const started = await rig.api('POST', `/mirror/sources/${id}/sync`);
    await eventually(async () => (rig.trove.ctx.db.$client.prepare('SELECT count(*) AS n FROM mirror_items').get() as { n: number }).n >= 10);
    await rig.restart();
    const imported = (rig.trove.ctx.db.$client.prepare('SELECT path FROM mirror_items').all() as { path: string }[]).map((r) => r.path);
    expect(imported.length).toBeGreaterThanOrEqual(10);
    expect(imported.length).toBeLessThan(40);
    rig.nexus.knobs.downloadDelayMs = 0;
    const done = await waitSync(rig, started.body.id);
    // What it fetched before the restart counts once, as fetched, not again as unchanged.
    expect(done).toMatchObject({ state: 'done', resumes: 1, repos: [{ listed: 40, fetched: 40, skipped_unchanged: 0, failed: 0 }] });
    for (const p of imported) expect(rig.nexus.downloads('files', p)).toBe(1);
    for (let i = 0; i < 40; i++) expect(await read(`f${i}`)).toEqual({ status: 200, text: `x${i}` });
  });

  it('records an import in the commit that makes it visible, so a kill at any moment leaves no file the next sync does not know', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`f${i}`] = `x${i}`;
    const id = await mirrored(files);
    rig.nexus.knobs.downloadDelayMs = 2;
    // Another connection sees only committed states, as a restarted server would after a kill at that moment.
    const { sqlite: other } = openDatabase(join(rig.dataDir, 'trove.db'));
    const unrecorded = other.prepare(
      `SELECT count(*) AS n FROM assets a JOIN repos r ON r.id = a.repo_id WHERE r.name = 'files'
       AND NOT EXISTS (SELECT 1 FROM mirror_items m WHERE m.target_path = a.path)`,
    );
    let seen = 0;
    let worst = 0;
    let running = true;
    const watch = (async () => {
      while (running) {
        worst = Math.max(worst, (unrecorded.get() as { n: number }).n);
        seen++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    try {
      expect(await sync(id)).toMatchObject({ state: 'done', repos: [{ fetched: 300, failed: 0 }] });
    } finally {
      running = false;
      await watch;
      other.close();
    }
    expect(seen).toBeGreaterThan(100);
    expect(worst).toBe(0);
  });

  it('cuts over: a final sync, then the fence is lifted and the source is read-only history', async () => {
    const id = await mirrored({ a: '1' });
    await sync(id);
    rig.nexus.put('files', 'late', 'just before cut-over');
    const cut = await rig.api('POST', `/mirror/sources/${id}/cutover`);
    expect(cut.status).toBe(202);
    const final = await waitSync(rig, cut.body.sync.id);
    expect(final).toMatchObject({ state: 'done', trigger: 'cutover' });
    expect(await read('late')).toEqual({ status: 200, text: 'just before cut-over' });
    const src = await rig.api('GET', `/mirror/sources/${id}`);
    expect(src.body).toMatchObject({ state: 'cut_over', repos: [{ name: 'files', mirror_error: expect.stringMatching(/cut over/) }] });
    expect((await rig.api('GET', '/repos/files')).body.locked_by).toBe('');
    const write = await fetch(`${rig.trove.url}/raw/files/new.txt`, { method: 'PUT', body: 'mine', headers: { Authorization: basic('pub-files') } });
    expect(write.status).toBe(201);
    expect((await rig.api('POST', `/mirror/sources/${id}/sync`)).status).toBe(409);
    expect((await rig.api('PATCH', `/mirror/sources/${id}`, { password: 'x' })).status).toBe(409);
    expect((await rig.api('PUT', `/mirror/sources/${id}/repos`, [])).status).toBe(409);
    expect((await rig.api('POST', `/mirror/sources/${id}/cutover`)).status).toBe(409);
  });

  it('cuts over while a routine sync runs: that sync makes way (cancelled, saying why), the final sync runs now', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${i}`] = `x${i}`;
    const id = await mirrored(files);
    rig.nexus.knobs.downloadDelayMs = 40;
    const routine = await rig.api('POST', `/mirror/sources/${id}/sync`);
    await eventually(async () => ((await rig.api('GET', `/mirror/syncs/${routine.body.id}`)).body.repos[0]?.fetched ?? 0) > 0);
    rig.nexus.knobs.downloadDelayMs = 0;
    const cut = await rig.api('POST', `/mirror/sources/${id}/cutover`);
    expect(cut.status).toBe(202);
    expect(await rig.api('POST', `/mirror/sources/${id}/cutover`)).toMatchObject({ status: 409, body: { error: 'a cut-over of this source is already running' } });
    expect((await rig.api('GET', `/mirror/syncs/${routine.body.id}`)).body).toMatchObject({ state: 'cancelled', error: expect.stringMatching(/^cancelled to start the cut-over/) });
    expect(await waitSync(rig, cut.body.sync.id)).toMatchObject({ state: 'done', trigger: 'cutover' });
    expect((await rig.api('GET', `/mirror/sources/${id}`)).body.state).toBe('cut_over');
    const audited = rig.trove.ctx.audit.page({ limit: 1, action: 'mirror.cutover' }).items[0]!;
    expect(JSON.parse(audited.detail)).toEqual({ id, sync: String(cut.body.sync.id), cancelled_sync: String(routine.body.id) });
    // What the cancelled sync imported is not fetched again; only its downloads in flight are.
    const cancelled = (await rig.api('GET', `/mirror/syncs/${routine.body.id}`)).body.repos[0].fetched;
    let again = 0;
    for (let i = 0; i < 30; i++) again += rig.nexus.downloads('files', `f${i}`) - 1;
    expect(cancelled).toBeGreaterThan(0);
    expect(again).toBeLessThanOrEqual(4); // mirror.concurrency
    expect((await rig.api('GET', `/mirror/syncs/${cut.body.sync.id}`)).body.repos[0]).toMatchObject({ fetched: 30 - cancelled, skipped_unchanged: cancelled });
  });

  it('does not cut over while the final sync leaves a file behind', async () => {
    const id = await mirrored({ a: '1', bad: '2' });
    rig.nexus.knobs.lyingChecksums.add('files/bad');
    const cut = await rig.api('POST', `/mirror/sources/${id}/cutover`);
    const final = await waitSync(rig, cut.body.sync.id);
    expect(final).toMatchObject({ state: 'failed', error: expect.stringMatching(/cut-over not done: 1 files/) });
    expect((await rig.api('GET', `/mirror/sources/${id}`)).body.state).toBe('mirroring');
    expect((await rig.api('GET', '/repos/files')).body.locked_by).toBe('nexus/files');
  });

  it('syncs by itself every mirror.sync_interval, and follows a change of it live', async () => {
    const id = await mirrored({ a: '1' }, { mirror: { period: (ms) => ms / 200 } });
    // 15m / 200 = 4.5 s: nothing yet.
    await new Promise((r) => setTimeout(r, 500));
    expect((await rig.api('GET', `/mirror/sources/${id}/syncs`)).body.items).toHaveLength(0);
    expect((await rig.api('PATCH', '/settings', { 'mirror.sync_interval': '1m' })).status).toBe(200); // 300 ms
    const scheduled = await eventually(async () => (await rig.api('GET', `/mirror/sources/${id}/syncs`)).body.items[0], 3_000);
    expect(scheduled.trigger).toBe('schedule');
  });

  it('keeps to mirror.sync_interval across restarts more frequent than it', async () => {
    const id = await mirrored({ a: '1' }, { mirror: { period: (ms) => ms / 200 } });
    expect((await rig.api('PATCH', '/settings', { 'mirror.sync_interval': '2m' })).status).toBe(200); // 600 ms
    const started = Date.now();
    while (Date.now() - started < 2_500) {
      await new Promise((r) => setTimeout(r, 200));
      await rig.restart(); // each start used to begin a whole interval again
    }
    const syncs = (await rig.api('GET', `/mirror/sources/${id}/syncs`)).body.items;
    expect(syncs.length).toBeGreaterThanOrEqual(2);
    expect(syncs.every((x: any) => x.trigger === 'schedule')).toBe(true);
  });
});

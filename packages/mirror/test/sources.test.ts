import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { mirrorSources } from '../src/schema.js';
import { startRig, waitSync, type Rig } from './harness.js';

let rig: Rig;
beforeEach(async () => {
  rig = await startRig();
  rig.nexus.addRepo('files', 'raw').addRepo('releases', 'maven2').addRepo('central', 'maven2', 'proxy').addRepo('public', 'maven2', 'group', { members: ['releases'] }).addRepo('npm-hosted', 'npm');
});
afterEach(() => rig.close());

const source = (over: Record<string, unknown> = {}) => ({ name: 'nexus', base_url: rig.nexus.url + '/', username: 'admin', password: 'admin123', ...over });

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('mirror sources API', () => {
  it('is for admins only', async () => {
    expect((await rig.api('GET', '/mirror/sources', undefined, 'alice')).status).toBe(403);
    const anon = await fetch(`${rig.trove.url}/api/mirror/sources`);
    expect(anon.status).toBe(401);
  });

  it('creates a source after checking the connection, and never returns or stores the password in clear', async () => {
    const bad = await rig.api('POST', '/mirror/sources', source({ password: 'wrong' }));
    expect(bad).toMatchObject({ status: 400, body: { error: 'the source refused the credentials' } });
    const down = await rig.api('POST', '/mirror/sources', source({ base_url: `http://127.0.0.1:${await closedPort()}` }));
    expect(down.status).toBe(502);
    expect(down.body.error).toMatch(/unreachable/);
    expect((await rig.api('POST', '/mirror/sources', source({ base_url: 'ftp://x' }))).status).toBe(400);
    expect(await rig.api('POST', '/mirror/sources', source({ base_url: `${rig.nexus.url}/nexus` }))).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^base_url has no Nexus REST API \(404 for .*\/nexus\/service\/rest\/v1\/status\)/) } });
    expect((await rig.api('POST', '/mirror/sources', source({ name: '../x' }))).status).toBe(400);
    expect(await rig.api('POST', '/mirror/sources', source({ pasword: 'typo' }))).toMatchObject({ status: 400, body: { error: expect.stringMatching(/unknown field pasword/) } });

    const created = await rig.api('POST', '/mirror/sources', source());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'nexus', base_url: rig.nexus.url, username: 'admin', state: 'mirroring', mapping: [] });
    expect(JSON.stringify(created.body)).not.toContain('admin123');
    expect((await rig.api('POST', '/mirror/sources', source())).status).toBe(409);
    // Two creates of one name racing through the connection check: one wins, the other is a 409, not a 500.
    const racing = await Promise.all([rig.api('POST', '/mirror/sources', source({ name: 'twin' })), rig.api('POST', '/mirror/sources', source({ name: 'twin' }))]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409]);
    const row = rig.trove.ctx.db.$client.prepare('SELECT password_sealed FROM mirror_sources').get() as { password_sealed: string };
    expect(row.password_sealed).toMatch(/^enc:v1:/);
    expect(row.password_sealed).not.toContain('admin123');
  });

  it('lists sources in name order with cursors', async () => {
    for (const name of ['c', 'a', 'b']) expect((await rig.api('POST', '/mirror/sources', source({ name }))).status).toBe(201);
    const first = await rig.api('GET', '/mirror/sources?limit=2');
    expect(first.body.items.map((s: any) => s.name)).toEqual(['a', 'b']);
    const rest = await rig.api('GET', `/mirror/sources?limit=2&after=${first.body.next}`);
    expect(rest.body).toMatchObject({ items: [{ name: 'c' }], next: '' });
    expect((await rig.api('GET', '/mirror/sources?after=!!')).status).toBe(400);
  });

  it('shows the remote repositories, and only the mapped ones with mirror_error when the source is unreachable', async () => {
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    const got = await rig.api('GET', `/mirror/sources/${s.id}`);
    expect(got.body.repos.map((r: any) => [r.name, r.format, r.type, r.mappable])).toEqual([
      ['central', 'maven2', 'proxy', false],
      ['files', 'raw', 'hosted', true],
      ['npm-hosted', 'npm', 'hosted', false],
      ['public', 'maven2', 'group', false],
      ['releases', 'maven2', 'hosted', true],
    ]);
    expect((await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }])).status).toBe(200);
    rig.nexus.addRepo('constructor', 'constructor' as 'raw'); // a format name that is a property of every object
    expect((await rig.api('GET', `/mirror/sources/${s.id}`)).body.repos.find((r: any) => r.name === 'constructor')).toMatchObject({ mappable: false, reason: 'format constructor is not mirrored' });
    rig.nexus.knobs.down = true;
    const down = await rig.api('GET', `/mirror/sources/${s.id}`);
    expect(down.status).toBe(200);
    expect(down.body.mirror_error).toMatch(/unreachable/);
    expect(down.body.repos).toEqual([{ name: 'files', format: 'raw', type: 'hosted', target: 'files', mirror_error: down.body.mirror_error }]);
    expect((await rig.api('GET', '/mirror/sources/nope')).status).toBe(404);
  });

  it('re-checks a PATCH, keeps the password when it is empty, and refuses unknown fields', async () => {
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    expect((await rig.api('PATCH', `/mirror/sources/${s.id}`, { password: 'wrong' })).status).toBe(400);
    expect((await rig.api('PATCH', `/mirror/sources/${s.id}`, { name: 'x' })).status).toBe(400);
    const ok = await rig.api('PATCH', `/mirror/sources/${s.id}`, { base_url: rig.nexus.url, password: '' });
    expect(ok.status).toBe(200);
    expect((await rig.api('GET', `/mirror/sources/${s.id}`)).body.mirror_error).toBe('');
    // The stored password is never sent to another host: moving base_url there needs it typed again.
    const elsewhere = rig.nexus.url.replace('127.0.0.1', 'localhost');
    expect(await rig.api('PATCH', `/mirror/sources/${s.id}`, { base_url: elsewhere })).toMatchObject({ status: 400, body: { error: 'base_url moves to another host; send the password with it' } });
    expect(await rig.api('PATCH', `/mirror/sources/${s.id}`, { base_url: elsewhere, password: 'admin123' })).toMatchObject({ status: 200, body: { base_url: elsewhere } });
  });

  it('answers a PATCH whose source was cut over or deleted while its check waited on the source with 409 or 404, changing nothing', async () => {
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }]);
    rig.nexus.knobs.slowRest.set('/service/rest/v1/status', 1500);
    const patch = rig.api('PATCH', `/mirror/sources/${s.id}`, { password: 'admin123' });
    await new Promise((r) => setTimeout(r, 200));
    const cut = await rig.api('POST', `/mirror/sources/${s.id}/cutover`);
    expect(cut.status).toBe(202);
    await waitSync(rig, cut.body.id);
    const after = (await rig.api('GET', `/mirror/sources/${s.id}`)).body;
    expect(after.state).toBe('cut_over');
    expect((await patch).status).toBe(409);
    expect((await rig.api('GET', `/mirror/sources/${s.id}`)).body.updated_at).toBe(after.updated_at);

    rig.nexus.knobs.slowRest.clear();
    const { body: other } = await rig.api('POST', '/mirror/sources', source({ name: 'unmapped' }));
    rig.nexus.knobs.slowRest.set('/service/rest/v1/status', 1000);
    const late = rig.api('PATCH', `/mirror/sources/${other.id}`, { password: 'admin123' });
    await new Promise((r) => setTimeout(r, 200));
    expect((await rig.api('DELETE', `/mirror/sources/${other.id}`)).status).toBe(204);
    expect((await late).status).toBe(404);
  });

  it('answers 409 saying what to do when the stored password cannot be decrypted, and takes a new one', async () => {
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    // What a master key replaced without the old one leaves: a sealed value this server cannot open.
    rig.trove.ctx.db.update(mirrorSources).set({ passwordSealed: rig.trove.ctx.secrets.seal('another.secret', 'admin123') }).where(eq(mirrorSources.id, s.id)).run();
    const why = /^the stored password of source nexus cannot be decrypted \(was the master key replaced\?\); PATCH the source with its password$/;
    expect(await rig.api('PATCH', `/mirror/sources/${s.id}`, { username: 'admin' })).toMatchObject({ status: 409, body: { error: expect.stringMatching(why) } });
    expect(await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }])).toMatchObject({ status: 409, body: { error: expect.stringMatching(why) } });
    expect(await rig.api('GET', `/mirror/sources/${s.id}`)).toMatchObject({ status: 200, body: { mirror_error: expect.stringMatching(why) } });
    expect((await rig.api('PATCH', `/mirror/sources/${s.id}`, { password: 'admin123' })).status).toBe(200);
    expect((await rig.api('GET', `/mirror/sources/${s.id}`)).body.mirror_error).toBe('');
  });

  it('records every admin action in the audit log, the repositories a mapping creates included, never the password', async () => {
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    await rig.api('PATCH', `/mirror/sources/${s.id}`, { password: 'admin123' });
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }]);
    const sync = await rig.api('POST', `/mirror/sources/${s.id}/sync`);
    await waitSync(rig, sync.body.id);
    await rig.api('PUT', `/mirror/sources/${s.id}/repos`, []);
    expect((await rig.api('DELETE', `/mirror/sources/${s.id}`)).status).toBe(204);
    const entries = rig.trove.ctx.audit.page({ limit: 50 }).items.reverse();
    expect(entries.map((e) => [e.action, e.target])).toEqual([
      ['mirror.source.create', 'nexus'],
      ['mirror.source.update', 'nexus'],
      ['repo.create', 'files'],
      ['mirror.mapping.set', 'nexus'],
      ['mirror.sync.start', 'nexus'],
      ['mirror.mapping.set', 'nexus'],
      ['mirror.source.delete', 'nexus'],
    ]);
    expect(entries.every((e) => e.actor === 'admin')).toBe(true);
    expect(JSON.stringify(entries)).not.toMatch(/admin123/);
    expect(JSON.parse(entries[3]!.detail)).toMatchObject({ id: s.id, mapping: [{ source_repo: 'files', target: 'files' }] });
  });

  it('maps hosted repositories, creates and locks targets, and refuses proxies, groups and foreign formats with why', async () => {
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    const put = (body: unknown) => rig.api('PUT', `/mirror/sources/${s.id}/repos`, body);
    expect(await put([{ source_repo: 'central', target: 'c', create: true }])).toMatchObject({ status: 400, body: { error: expect.stringMatching(/proxy repository: it holds no content of its own/) } });
    expect(await put([{ source_repo: 'public', target: 'c', create: true }])).toMatchObject({ status: 400, body: { error: expect.stringMatching(/group repository/) } });
    expect(await put([{ source_repo: 'npm-hosted', target: 'c', create: true }])).toMatchObject({ status: 400, body: { error: expect.stringMatching(/format npm/) } });
    expect((await put([{ source_repo: 'nope', target: 'c', create: true }])).status).toBe(400);
    expect((await put([{ source_repo: 'files', target: 'files' }])).status).toBe(400); // does not exist, no create
    expect((await put({})).status).toBe(400);
    expect(await put([{ source_repo: 'files', target: 'files', create: true, targte: 'x' }])).toMatchObject({ status: 400, body: { error: 'entry 0: unknown field targte; an entry has source_repo, target and create' } });
    expect(rig.trove.ctx.repos.byName('c')).toBeUndefined();

    const mapped = await put([{ source_repo: 'files', target: 'files', create: true }]);
    expect(mapped.body.items).toEqual([{ source_repo: 'files', source_format: 'raw', target: 'files' }]);
    const repo = await rig.api('GET', '/repos/files');
    expect(repo.body).toMatchObject({ format: 'raw', locked_by: 'nexus/files' });
    const write = await fetch(`${rig.trove.url}/raw/files/x.txt`, { method: 'PUT', body: 'x', headers: { Authorization: `Basic ${Buffer.from('ci:pub-files').toString('base64')}` } });
    expect(write.status).toBe(409);
    expect((await rig.api('DELETE', `/mirror/sources/${s.id}`)).status).toBe(409);

    // Replacing the whole mapping with none lifts the fence; the source can then go.
    expect((await put([])).body.items).toEqual([]);
    expect((await rig.api('GET', '/repos/files')).body.locked_by).toBe('');
    expect((await rig.api('DELETE', `/mirror/sources/${s.id}`)).status).toBe(204);
    expect((await rig.api('GET', `/mirror/sources/${s.id}`)).status).toBe(404);
  });

  it('answers within its deadline when the source holds requests open', async () => {
    await rig.close();
    rig = await startRig({ mirror: { client: { backoffMs: 5, timeoutMs: 60_000 }, answerWithinMs: 400 } });
    rig.nexus.addRepo('files', 'raw');
    const hole = createServer(() => {}); // accepts connections, never answers
    await new Promise<void>((r) => hole.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (hole.address() as { port: number }).port;
      let t0 = Date.now();
      const create = await rig.api('POST', '/mirror/sources', source({ base_url: `http://127.0.0.1:${port}` }));
      expect(create).toMatchObject({ status: 502, body: { error: 'the source did not answer within 0.4 s' } });
      expect(Date.now() - t0).toBeLessThan(5_000);
      const { body: s } = await rig.api('POST', '/mirror/sources', source());
      rig.nexus.knobs.slowRest.set('/service/rest/v1/repositories', Infinity);
      t0 = Date.now();
      expect(await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }])).toMatchObject({ status: 502, body: { error: expect.stringMatching(/did not answer within/) } });
      expect(await rig.api('GET', `/mirror/sources/${s.id}`)).toMatchObject({ status: 200, body: { mirror_error: expect.stringMatching(/did not answer within/) } });
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      hole.close();
    }
  });

  it('starts no sync, cut-over or second change while a mapping change waits on the source', async () => {
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    const put = (body: unknown) => rig.api('PUT', `/mirror/sources/${s.id}/repos`, body);
    expect((await put([{ source_repo: 'files', target: 'old', create: true }])).status).toBe(200);
    rig.nexus.knobs.slowRest.set('/service/rest/v1/repositories', 500);
    const changing = put([{ source_repo: 'files', target: 'new', create: true }]);
    await new Promise((r) => setTimeout(r, 150));
    const busy = { status: 409, body: { error: expect.stringMatching(/mapping of nexus is being changed/) } };
    expect(await rig.api('POST', `/mirror/sources/${s.id}/sync`)).toMatchObject(busy);
    expect(await rig.api('POST', `/mirror/sources/${s.id}/cutover`)).toMatchObject(busy);
    expect(await rig.api('DELETE', `/mirror/sources/${s.id}`)).toMatchObject(busy);
    expect(await put([])).toMatchObject(busy);
    expect(await changing).toMatchObject({ status: 200, body: { items: [{ source_repo: 'files', target: 'new' }] } });
    expect((await rig.api('GET', '/repos/old')).body.locked_by).toBe('');
    rig.nexus.knobs.slowRest.clear();
    const started = await rig.api('POST', `/mirror/sources/${s.id}/sync`);
    expect(started.status).toBe(202);
    expect(await waitSync(rig, started.body.id)).toMatchObject({ state: 'done', repos: [{ target: 'new' }] });
  });

  it('refuses a target that holds the history of a cut-over source, and leaves it unlocked', async () => {
    rig.nexus.put('files', 'a', '1');
    const { body: first } = await rig.api('POST', '/mirror/sources', source({ name: 'first' }));
    expect((await rig.api('PUT', `/mirror/sources/${first.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }])).status).toBe(200);
    const cut = await rig.api('POST', `/mirror/sources/${first.id}/cutover`);
    expect(await waitSync(rig, cut.body.sync.id)).toMatchObject({ state: 'done' });
    const { body: second } = await rig.api('POST', '/mirror/sources', source({ name: 'second' }));
    const put = await rig.api('PUT', `/mirror/sources/${second.id}/repos`, [{ source_repo: 'files', target: 'files', create: false }]);
    expect(put).toMatchObject({ status: 409, body: { error: expect.stringMatching(/keeps the history of source first, which is cut over; delete that source/) } });
    expect((await rig.api('GET', '/repos/files')).body.locked_by).toBe('');
    expect((await rig.api('DELETE', `/mirror/sources/${first.id}`)).status).toBe(204);
    // The history is gone, the files are not: they are Trove's own now.
    const again = await rig.api('PUT', `/mirror/sources/${second.id}/repos`, [{ source_repo: 'files', target: 'files', create: false }]);
    expect(again).toMatchObject({ status: 409, body: { error: expect.stringMatching(/^repository files already holds files \(a, \.\.\.\); a mirror fills a new or empty repository/) } });
  });

  it("refuses to mirror into a repository holding files of its own, and keeps a mapping's own target", async () => {
    rig.nexus.put('files', 'a', 'from nexus');
    await rig.trove.ctx.repos.create({ name: 'mine', format: 'raw' });
    await rig.trove.ctx.repos.create({ name: 'empty', format: 'raw' });
    const owned = await rig.trove.ctx.spool.receiveBytes([Buffer.from('trove’s own')], { maxBytes: 1024 });
    await rig.trove.ctx.assets.commit({ repo: rig.trove.ctx.repos.require('mine'), path: 'a', file: owned, contentType: 'text/plain', uploader: 'alice' });
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    const put = (target: string) => rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target, create: false }]);
    expect(await put('mine')).toMatchObject({ status: 409, body: { error: expect.stringMatching(/repository mine already holds files \(a, \.\.\.\); .*map files with create: true and a new name/) } });
    expect((await rig.api('GET', '/repos/mine')).body.locked_by).toBe('');

    expect((await put('empty')).status).toBe(200);
    const sync = await rig.api('POST', `/mirror/sources/${s.id}/sync`);
    expect(await waitSync(rig, sync.body.id)).toMatchObject({ state: 'done', repos: [{ fetched: 1 }] });
    // Filled by this mapping: the same mapping again (as every PUT replaces the whole list) is no conflict.
    expect((await put('empty')).status).toBe(200);
    expect((await rig.api('GET', '/repos/empty')).body.locked_by).toBe('nexus/files');
  });

  it("carries a maven2 repository's version policy over to its target, created or existing", async () => {
    rig.nexus.addRepo('rel', 'maven2', 'hosted', { versionPolicy: 'RELEASE' }).addRepo('snap', 'maven2', 'hosted', { versionPolicy: 'SNAPSHOT' });
    await rig.trove.ctx.repos.create({ name: 'snapshots', format: 'maven' });
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    const listed = (await rig.api('GET', `/mirror/sources/${s.id}`)).body.repos;
    expect(listed.find((r: { name: string }) => r.name === 'rel')).toMatchObject({ format: 'maven2', version_policy: 'release' });
    expect(listed.find((r: { name: string }) => r.name === 'releases')).toMatchObject({ version_policy: 'mixed' });
    const put = await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [
      { source_repo: 'rel', target: 'rel', create: true },
      { source_repo: 'snap', target: 'snapshots', create: false },
    ]);
    expect(put.status).toBe(200);
    expect((await rig.api('GET', '/repos/rel')).body.config).toEqual({ version_policy: 'release' });
    expect((await rig.api('GET', '/repos/snapshots')).body.config).toEqual({ version_policy: 'snapshot' });
  });

  it("carries Nexus's redeploy rule over to a raw target's overwrite", async () => {
    rig.nexus.addRepo('ci-files', 'raw', 'hosted', { writePolicy: 'ALLOW' });
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    const listed = (await rig.api('GET', `/mirror/sources/${s.id}`)).body.repos;
    expect(listed.find((r: { name: string }) => r.name === 'ci-files')).toMatchObject({ redeploy: true });
    expect(listed.find((r: { name: string }) => r.name === 'files')).toMatchObject({ redeploy: false });
    const put = await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [
      { source_repo: 'ci-files', target: 'ci-files', create: true },
      { source_repo: 'files', target: 'files', create: true },
    ]);
    expect(put.status).toBe(200);
    expect((await rig.api('GET', '/repos/ci-files')).body.overwrite).toBe('allow');
    expect((await rig.api('GET', '/repos/files')).body.overwrite).toBe('deny');
  });

  it("puts back the rules it gave a target when a later entry fails to apply", async () => {
    rig.nexus.addRepo('rel', 'maven2', 'hosted', { versionPolicy: 'RELEASE' }).addRepo('ci-files', 'raw', 'hosted', { writePolicy: 'ALLOW' });
    const ctx = rig.trove.ctx;
    await ctx.repos.create({ name: 'maven-empty', format: 'maven' });
    await ctx.repos.create({ name: 'ci', format: 'raw' });
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    // The unforeseen: a repository of the name made by someone else between the checks and the creation.
    const create = ctx.repos.create.bind(ctx.repos);
    ctx.repos.create = async (input) => {
      await create({ name: String(input.name), format: 'raw' });
      return create(input);
    };
    const put = await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [
      { source_repo: 'rel', target: 'maven-empty', create: false },
      { source_repo: 'ci-files', target: 'ci', create: false },
      { source_repo: 'files', target: 'new-files', create: true },
    ]);
    expect(put.status).toBe(409);
    expect((await rig.api('GET', '/repos/maven-empty')).body).toMatchObject({ locked_by: '', config: { version_policy: 'mixed' } });
    expect((await rig.api('GET', '/repos/ci')).body).toMatchObject({ locked_by: '', overwrite: 'deny' });
    expect((await rig.api('GET', `/mirror/sources/${s.id}`)).body.mapping).toEqual([]);
  });

  it('changes nothing when one entry of a mapping cannot be applied', async () => {
    rig.nexus.addRepo('apt-bad', 'apt', 'hosted', { distribution: 'focal/updates' });
    const { body: s } = await rig.api('POST', '/mirror/sources', source());
    const put = await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [
      { source_repo: 'files', target: 'files', create: true },
      { source_repo: 'apt-bad', target: 'apt', create: true },
    ]);
    expect(put).toMatchObject({ status: 400, body: { error: expect.stringMatching(/invalid config for format debian: distribution/) } });
    expect((await rig.api('GET', '/repos/files')).status).toBe(404);
    expect((await rig.api('GET', `/mirror/sources/${s.id}`)).body.mapping).toEqual([]);
    expect((await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }])).status).toBe(200);
  });
});

import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { auth, coreServer, json } from './helpers.js';
import type { TestServer } from '../src/testing/server.js';

let s: TestServer;
afterEach(() => s?.close());

async function seed(s: TestServer) {
  const post = (body: object) => fetch(`${s.url}/api/repos`, { method: 'POST', headers: json('adminpw'), body: JSON.stringify(body) });
  expect((await post({ name: 'public', format: 'note', anonymous_read: true })).status).toBe(201);
  expect((await post({ name: 'private', format: 'note', config: { color: 'red' } })).status).toBe(201);
}

async function addAsset(s: TestServer, repoName: string, path: string, body = path) {
  const repo = s.ctx.repos.require(repoName);
  const file = await s.ctx.spool.receive(Readable.from([Buffer.from(body)]), { maxBytes: 1e6 });
  return s.ctx.assets.commit({ repo, path, file, contentType: 'text/plain', uploader: 'ci', onExisting: 'conflict' });
}

describe('repositories API', () => {
  it('lists formats with their default config', async () => {
    s = await coreServer();
    const r = await fetch(`${s.url}/api/formats`);
    expect(await r.json()).toEqual([{ name: 'note', title: 'Notes', default_config: { color: 'blue' } }]);
  });

  it('creates repositories with default or validated config', async () => {
    s = await coreServer();
    await seed(s);
    const pub = await (await fetch(`${s.url}/api/repos/public`)).json();
    expect(pub).toMatchObject({ name: 'public', format: 'note', config: { color: 'blue' }, anonymous_read: true, overwrite: 'deny', locked_by: '' });
    const bad = await fetch(`${s.url}/api/repos`, { method: 'POST', headers: json('adminpw'), body: JSON.stringify({ name: 'x', format: 'note', config: { color: 'green' } }) });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatch(/color/);
    const unknown = await fetch(`${s.url}/api/repos`, { method: 'POST', headers: json('adminpw'), body: JSON.stringify({ name: 'y', format: 'nuget' }) });
    expect(unknown.status).toBe(400);
    const dup = await fetch(`${s.url}/api/repos`, { method: 'POST', headers: json('adminpw'), body: JSON.stringify({ name: 'public', format: 'note' }) });
    expect(dup.status).toBe(409);
    const badName = await fetch(`${s.url}/api/repos`, { method: 'POST', headers: json('adminpw'), body: JSON.stringify({ name: '../x', format: 'note' }) });
    expect(badName.status).toBe(400);
    expect((await fetch(`${s.url}/api/repos`, { method: 'POST', headers: json('alicepw'), body: JSON.stringify({ name: 'z', format: 'note' }) })).status).toBe(403);
  });

  it('shows each caller only the repositories it can read', async () => {
    s = await coreServer();
    await seed(s);
    const names = async (h: Record<string, string> = {}) => (await (await fetch(`${s.url}/api/repos`, { headers: h })).json()).items.map((r: any) => r.name);
    expect(await names()).toEqual(['public']);
    expect(await names(auth('alicepw'))).toEqual(['public']);
    expect(await names(auth('adminpw'))).toEqual(['private', 'public']);
    await fetch(`${s.url}/api/repos/private/permissions/alice`, { method: 'PUT', headers: json('adminpw'), body: JSON.stringify({ level: 'read' }) });
    expect(await names(auth('alicepw'))).toEqual(['private', 'public']);
    const perms = await (await fetch(`${s.url}/api/repos/private/permissions`, { headers: auth('adminpw') })).json();
    expect(perms.items).toEqual([{ username: 'alice', level: 'read' }]);
  });

  it('answers 401 anonymous, 404 signed-in for unknown repos and 403 without permission', async () => {
    s = await coreServer();
    await seed(s);
    const unknownAnon = await fetch(`${s.url}/api/repos/nope`);
    expect(unknownAnon.status).toBe(401);
    expect((await fetch(`${s.url}/api/repos/private`)).status).toBe(401);
    expect((await fetch(`${s.url}/api/repos/nope`, { headers: auth('alicepw') })).status).toBe(404);
    expect((await fetch(`${s.url}/api/repos/private`, { headers: auth('alicepw') })).status).toBe(403);
    expect((await fetch(`${s.url}/api/repos/private`, { headers: auth('wrong') })).status).toBe(401);
  });

  it('patches a repository and validates config against its format', async () => {
    s = await coreServer();
    await seed(s);
    let r = await fetch(`${s.url}/api/repos/private`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ anonymous_read: true, config: { color: 'blue' } }) });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ anonymous_read: true, config: { color: 'blue' } });
    r = await fetch(`${s.url}/api/repos/private`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ overwrite: 'sometimes' }) });
    expect(r.status).toBe(400);
  });

  it('pages assets in path order with opaque cursors and a prefix range', async () => {
    s = await coreServer();
    await seed(s);
    for (const p of ['b/2.txt', 'a/1.txt', 'b/1.txt', 'c.txt', 'b/3.txt', 'ba.txt']) await addAsset(s, 'public', p);
    let r = await (await fetch(`${s.url}/api/repos/public/assets?limit=2`)).json();
    expect(r.items.map((a: any) => a.path)).toEqual(['a/1.txt', 'b/1.txt']);
    expect(r.next).toBeTruthy();
    r = await (await fetch(`${s.url}/api/repos/public/assets?limit=2&after=${r.next}`)).json();
    expect(r.items.map((a: any) => a.path)).toEqual(['b/2.txt', 'b/3.txt']);
    r = await (await fetch(`${s.url}/api/repos/public/assets?prefix=b/`)).json();
    expect(r.items.map((a: any) => a.path)).toEqual(['b/1.txt', 'b/2.txt', 'b/3.txt']);
    expect(r.next).toBe('');
    expect(r.items[0]).toMatchObject({ size: 7, uploader: 'ci', content_type: 'text/plain' });
    expect(r.items[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await fetch(`${s.url}/api/repos/public/assets?after=garbage!`)).status).toBe(400);
    expect((await fetch(`${s.url}/api/repos/public/assets?limit=0`)).status).toBe(400);
    const big = await (await fetch(`${s.url}/api/repos/public/assets?limit=100000`)).json();
    expect(big.items).toHaveLength(6);
  });

  it('searches path substrings in readable repositories only', async () => {
    s = await coreServer();
    await seed(s);
    await addAsset(s, 'public', 'lib/widget-1.0.jar');
    await addAsset(s, 'private', 'lib/widget-secret.jar');
    await addAsset(s, 'public', 'lib/100%_sure.txt');
    const anon = await (await fetch(`${s.url}/api/search?q=widget`)).json();
    expect(anon.items.map((a: any) => `${a.repo}:${a.path}`)).toEqual(['public:lib/widget-1.0.jar']);
    const admin = await (await fetch(`${s.url}/api/search?q=widget`, { headers: auth('adminpw') })).json();
    expect(admin.items).toHaveLength(2);
    const pct = await (await fetch(`${s.url}/api/search?q=${encodeURIComponent('0%_')}`)).json();
    expect(pct.items.map((a: any) => a.path)).toEqual(['lib/100%_sure.txt']);
    expect((await fetch(`${s.url}/api/search?q=ab`)).status).toBe(400);
    // SQLite's LIKE stops at NUL: three of them were a pattern of "%", which matched every path.
    expect((await fetch(`${s.url}/api/search?q=%00%00%00`)).status).toBe(400);
  });

  it('answers status and usage from the format', async () => {
    s = await coreServer();
    await seed(s);
    expect(await (await fetch(`${s.url}/api/repos/public/status`)).json()).toEqual({ ok: true });
    const usage = await (await fetch(`${s.url}/api/repos/public/usage`)).json();
    expect(usage.base_url).toBe(s.url);
    expect(usage.snippets[0].code).toBe(`curl ${s.url}/note/public/x`);
  });

  it('rejects a changed asset under the immutability rule and accepts an identical one', async () => {
    s = await coreServer();
    await seed(s);
    expect((await addAsset(s, 'public', 'x.txt', 'one')).status).toBe('created');
    expect((await addAsset(s, 'public', 'x.txt', 'one')).status).toBe('identical');
    await expect(addAsset(s, 'public', 'x.txt', 'two')).rejects.toMatchObject({ status: 409 });
  });
});

describe('health', () => {
  it('answers ok while the database answers', async () => {
    s = await coreServer();
    const r = await fetch(`${s.url}/healthz`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('ok');
  });

  it('answers JSON 404 for unknown API routes', async () => {
    s = await coreServer();
    const r = await fetch(`${s.url}/api/nope`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: 'not found', code: 'not_found' });
  });
});

import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCore, type Core } from '@trove/core';
import { rawFormat } from '@trove/format-raw';
import { authModule } from '../src/index.js';
import { ReadTokenStore } from '../src/tokens/read-tokens.js';
import { api, basic, ROOT_PASSWORD, startAccounts, type Accounts, type Client } from './accounts/harness.js';

/**
 * The read path keeps credentials, users, permissions, repositories and asset rows in memory
 * (docs/decisions.md, "Read-path caches"). Each test warms those caches with the same request
 * twice, changes one thing, and expects the very next request to see the change: through this
 * server's own API, and written by a second process on the same database.
 */
let h: Accounts | undefined;
let other: Core | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await other?.close();
  other = undefined;
  await h?.close();
  h = undefined;
});

const root = basic('root', ROOT_PASSWORD);

/** A private raw repository `files` with `a.txt`, readable by alice (password and read token). */
async function setup(): Promise<{ h: Accounts; client: Client; password: string; token: string; tokenId: string; totp: { code(o?: number): string } }> {
  h = await startAccounts();
  const { client, password, totp } = await h.withTotp('alice');
  expect((await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw', overwrite: 'allow' } })).status).toBe(201);
  expect((await h.asRoot('/api/repos/files/permissions/alice', { method: 'PUT', body: { level: 'write' } })).status).toBe(200);
  await h.ctx.assets.commitBytes({ repo: h.ctx.repos.byName('files')!, path: 'a.txt', bytes: 'hello', contentType: 'text/plain', onExisting: 'conflict', uploader: 'alice' });
  const created = (await client.call('/api/tokens', { body: { name: 'ci' } })).body as { id: string; token: string };
  return { h, client, password, totp, token: h.secret(created.token), tokenId: created.id };
}

/**
 * The same database opened by another server process (here: another core in this process, with caches of its
 * own), as a node of a multi-node install: its own data directory (one server per directory), the shared
 * database and blob store.
 */
async function secondProcess(h: Accounts): Promise<Core> {
  other = await createCore({
    dataDir: mkdtempSync(join(tmpdir(), 'trove-second-')),
    dbFile: join(h.s.dataDir, 'trove.db'),
    masterKey: randomBytes(32),
    modules: [authModule(), rawFormat],
    env: { TR_FS_ROOT: join(h.s.dataDir, 'blobs') }, // and the shared blob store
    log: pino({ level: 'silent' }),
    followLogLevel: false,
  });
  return other;
}

async function read(h: Accounts, auth?: string, path = 'a.txt'): Promise<{ status: number; body: string }> {
  const r = await fetch(`${h.url}/raw/files/${path}`, { headers: auth ? { authorization: auth } : {} });
  return { status: r.status, body: await r.text() };
}

/** Twice, so the second answer comes from the caches. */
async function warm(h: Accounts, auth?: string, path?: string): Promise<void> {
  for (let i = 0; i < 2; i++) expect(await read(h, auth, path)).toEqual({ status: 200, body: 'hello' });
}

/** GETs on one keep-alive connection (an Agent with a single socket), as Maven and apt send them. */
function oneConnection(h: Accounts) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (auth?: string) =>
    new Promise<{ status: number; body: string; reused: boolean }>((resolve, reject) => {
      const req = http.get(`${h.url}/raw/files/a.txt`, { agent, headers: auth ? { authorization: auth } : {} }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body, reused: req.reusedSocket }));
      });
      req.on('error', reject);
    });
  return { get, close: () => agent.destroy() };
}

describe('read-path caches: a change applies on the very next request', () => {
  it('a keep-alive connection that changes its Authorization header gets each header its own answer', async () => {
    const { h, token } = await setup();
    const conn = oneConnection(h);
    try {
      for (let i = 0; i < 3; i++) expect(await conn.get(basic('x', token))).toMatchObject({ status: 200, body: 'hello' });
      // The answer and the credential are now held for this connection's header; other headers on it are checked on their own.
      const others = [basic('x', token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a')), basic('alice', 'not-her-password'), undefined];
      for (const auth of others) expect(await conn.get(auth)).toMatchObject({ status: 401, reused: true });
      expect(await conn.get(basic('x', token))).toMatchObject({ status: 200, body: 'hello', reused: true });
    } finally {
      conn.close();
    }
  });

  it('a deleted read token', async () => {
    const { h, client, token, tokenId } = await setup();
    await warm(h, basic('x', token));
    expect((await client.call(`/api/tokens/${tokenId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await read(h, basic('x', token))).status).toBe(401);
  });

  it('a read token deleted by another process', async () => {
    const { h, token, tokenId } = await setup();
    await warm(h, basic('x', token));
    const ctx2 = await secondProcess(h);
    expect(new ReadTokenStore(ctx2).remove(ctx2.users.byName('alice')!.id, tokenId)).toBe(true);
    expect((await read(h, basic('x', token))).status).toBe(401);
  });

  it('a disabled user, for the password and the read token', async () => {
    const { h, password, token } = await setup();
    await warm(h, basic('alice', password));
    await warm(h, basic('x', token));
    expect((await h.asRoot('/api/users/alice', { method: 'PATCH', body: { disabled: true } })).status).toBe(200);
    expect((await read(h, basic('alice', password))).status).toBe(401);
    expect((await read(h, basic('x', token))).status).toBe(401);
  });

  it('a user disabled by another process', async () => {
    const { h, password, token } = await setup();
    await warm(h, basic('alice', password));
    await warm(h, basic('x', token));
    const ctx2 = await secondProcess(h);
    ctx2.users.update(ctx2.users.byName('alice')!.id, { disabled: true });
    expect((await read(h, basic('alice', password))).status).toBe(401);
    expect((await read(h, basic('x', token))).status).toBe(401);
  });

  it('a changed password: the old one stops at once', async () => {
    const { h, client, password } = await setup();
    await warm(h, basic('alice', password));
    const next = h.secret('alice-second-password-9');
    expect((await client.call('/api/users/alice', { method: 'PATCH', body: { password: next, current_password: password } })).status).toBe(200);
    expect((await read(h, basic('alice', password))).status).toBe(401);
    expect((await read(h, basic('alice', next))).status).toBe(200);
  });

  it('a removed permission', async () => {
    const { h, password, token } = await setup();
    await warm(h, basic('alice', password));
    await warm(h, basic('x', token));
    expect((await h.asRoot('/api/repos/files/permissions/alice', { method: 'DELETE' })).status).toBe(204);
    expect((await read(h, basic('alice', password))).status).toBe(403);
    expect((await read(h, basic('x', token))).status).toBe(403);
  });

  it('a permission removed by another process', async () => {
    const { h, token } = await setup();
    await warm(h, basic('x', token));
    const ctx2 = await secondProcess(h);
    ctx2.permissions.remove(ctx2.repos.byName('files')!, 'alice');
    expect((await read(h, basic('x', token))).status).toBe(403);
  });

  it('a repository made private by another process', async () => {
    const { h } = await setup();
    expect((await h.asRoot('/api/repos/files', { method: 'PATCH', body: { anonymous_read: true } })).status).toBe(200);
    await warm(h);
    const ctx2 = await secondProcess(h);
    await ctx2.repos.update('files', { anonymous_read: false });
    expect((await read(h)).status).toBe(401);
  });

  it('a replaced file, here and from another process', async () => {
    const { h, token } = await setup();
    await warm(h, basic('x', token));
    const repo = h.ctx.repos.byName('files')!;
    await h.ctx.assets.commitBytes({ repo, path: 'a.txt', bytes: 'second', contentType: 'text/plain', onExisting: 'replace', uploader: 'alice' });
    expect(await read(h, basic('x', token))).toEqual({ status: 200, body: 'second' });
    const ctx2 = await secondProcess(h);
    await ctx2.assets.commitBytes({ repo: ctx2.repos.byName('files')!, path: 'a.txt', bytes: 'third', contentType: 'text/plain', onExisting: 'replace', uploader: 'alice' });
    expect(await read(h, basic('x', token))).toEqual({ status: 200, body: 'third' });
  });

  it('a deleted file, here and from another process; a file that appears after a 404', async () => {
    const { h, token } = await setup();
    const auth = basic('x', token);
    await warm(h, auth);
    expect(h.ctx.assets.delete(h.ctx.repos.byName('files')!, 'a.txt')).toBe(true);
    expect((await read(h, auth)).status).toBe(404);
    // The 404 is remembered too; the file's arrival from another process ends it.
    expect((await read(h, auth, 'b.txt')).status).toBe(404);
    const ctx2 = await secondProcess(h);
    await ctx2.assets.commitBytes({ repo: ctx2.repos.byName('files')!, path: 'b.txt', bytes: 'hello', contentType: 'text/plain', onExisting: 'conflict', uploader: 'alice' });
    await warm(h, auth, 'b.txt');
    expect(ctx2.assets.delete(ctx2.repos.byName('files')!, 'b.txt')).toBe(true);
    expect((await read(h, auth, 'b.txt')).status).toBe(404);
  });

  it('a closed publish session', async () => {
    const { h, client, totp } = await setup();
    const s = await client.call('/api/publish/sessions/manual', { body: { repo: 'files', totp_code: totp.fresh() } });
    expect(s.status).toBe(201);
    const auth = basic('ci', h.secret(s.body.token as string));
    await warm(h, auth);
    const put = await fetch(`${h.url}/raw/files/c.txt`, { method: 'PUT', body: 'c', headers: { authorization: auth } });
    expect(put.status).toBe(201);
    expect((await api(h, `/api/publish/sessions/${s.body.id}`, { method: 'DELETE', auth })).status).toBe(204);
    expect((await read(h, auth)).status).toBe(401);
    const again = await fetch(`${h.url}/raw/files/d.txt`, { method: 'PUT', body: 'd', headers: { authorization: auth } });
    expect(again.status).toBe(401);
  });

  it('conditional, ranged and HEAD requests for a URL answered from memory still follow the HTTP rules', async () => {
    const { h, token } = await setup();
    const auth = basic('x', token);
    await warm(h, auth);
    const first = await fetch(`${h.url}/raw/files/a.txt`, { headers: { authorization: auth } });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(first.headers.get('content-length')).toBe('5');
    expect(first.headers.get('last-modified')).toBeTruthy();
    expect((await fetch(`${h.url}/raw/files/a.txt`, { headers: { authorization: auth, 'if-none-match': etag } })).status).toBe(304);
    const part = await fetch(`${h.url}/raw/files/a.txt`, { headers: { authorization: auth, range: 'bytes=1-2' } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('el');
    const head = await fetch(`${h.url}/raw/files/a.txt`, { method: 'HEAD', headers: { authorization: auth } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('5');
    // Without credentials the private repository still challenges, though the answer is in memory.
    const anonymous = await fetch(`${h.url}/raw/files/a.txt`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/Basic/);
  });

  it('an expiring read token ends at its expiry, though its answers are in memory', async () => {
    const { h, client } = await setup();
    const t = h.secret((await client.call('/api/tokens', { body: { name: 'short', expires_in_days: 1 } })).body.token as string);
    const created = Date.now();
    // Cached 90 s before the expiry: its minute in the cache ends 30 s before the token does, so the
    // read after the expiry falls in the window where a password's entry would still be served.
    vi.useFakeTimers({ toFake: ['Date'], now: created + 86_400_000 - 90_000 });
    await warm(h, basic('x', t));
    vi.setSystemTime(created + 86_400_000 + 1000);
    expect((await read(h, basic('x', t))).status).toBe(401);
  });

  it('a password checked over a minute ago is still answered while it is checked again, and a change still ends it', async () => {
    const { h, client, password } = await setup();
    await warm(h, basic('alice', password));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    await warm(h, basic('alice', password));
    const next = h.secret('alice-second-password-9');
    expect((await client.call('/api/users/alice', { method: 'PATCH', body: { password: next, current_password: password } })).status).toBe(200);
    expect((await read(h, basic('alice', password))).status).toBe(401);
  });

  it('a wrong password is never served from the cache, even right after the right one', async () => {
    const { h, password } = await setup();
    await warm(h, basic('alice', password));
    expect((await read(h, basic('alice', password + 'x'))).status).toBe(401);
  });
});

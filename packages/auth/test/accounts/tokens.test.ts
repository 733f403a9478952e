import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, basic, ROOT_PASSWORD, startAccounts, type Accounts } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
  h = undefined;
});

const root = basic('root', ROOT_PASSWORD);

async function withRepo(h: Accounts) {
  await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
  await h.asRoot('/api/repos/files/permissions/alice', { method: 'PUT', body: { level: 'write' } });
  // Content arrives through the asset service (publishing is tested elsewhere).
  await h.ctx.assets.commitBytes({ repo: h.ctx.repos.byName('files')!, path: 'a.txt', bytes: 'hello', contentType: 'text/plain', onExisting: 'deny', uploader: 'alice' });
}

describe('read tokens', () => {
  it('creates trp_<id>_<secret> once; it reads format and /api routes as the Basic password with any user name, and as Bearer', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    await withRepo(h);
    const r = await client.call('/api/tokens', { body: { name: 'laptop', expires_in_days: 30 } });
    expect(r.status).toBe(201);
    const token = h.secret(r.body.token as string);
    expect(token).toMatch(new RegExp(`^trp_${r.body.id}_[A-Za-z0-9_-]{43}$`));
    expect(r.body).toMatchObject({ name: 'laptop', last_used_at: null });
    expect(Date.parse(r.body.expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const get = await fetch(`${h.url}/raw/files/a.txt`, { headers: { authorization: basic('anyone', token) } });
    expect(get.status).toBe(200);
    expect(await get.text()).toBe('hello');
    expect((await api(h, '/api/me', { auth: basic('whoever', token) })).body.username).toBe('alice');
    expect((await api(h, '/api/me', { auth: `Bearer ${token}` })).body.username).toBe('alice');
    const list = await client.call('/api/tokens');
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0].last_used_at).toBeTruthy();
    // The secret is everything after `trp_<id>_`: base64url, so it may itself hold (or start with) `_`.
    expect(JSON.stringify(list.body)).not.toContain(token.slice(`trp_${r.body.id}_`.length));
    expect(list.body.items[0]).not.toHaveProperty('token');
  });

  it('never writes and cannot create or delete tokens', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    await withRepo(h);
    const token = h.secret((await client.call('/api/tokens', { body: { name: 'ci' } })).body.token as string);
    const put = await fetch(`${h.url}/raw/files/b.txt`, { method: 'PUT', body: 'x', headers: { authorization: basic('x', token) } });
    expect(put.status).toBe(401);
    expect((await put.json()).error).toMatch(/publish session/);
    expect((await api(h, '/api/tokens', { auth: basic('x', token), body: { name: 'another' } })).status).toBe(403);
    const id = (await client.call('/api/tokens')).body.items[0].id;
    expect((await api(h, `/api/tokens/${id}`, { method: 'DELETE', auth: basic('x', token) })).status).toBe(403);
    expect((await api(h, '/api/users/alice', { method: 'PATCH', auth: basic('x', token), body: { email: 'a@b.c' } })).status).toBe(403);
  });

  it('stops at once when deleted or its owner is disabled', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    const a = (await client.call('/api/tokens', { body: { name: 'a' } })).body as { id: string; token: string };
    h.secret(a.token);
    const b = h.secret((await client.call('/api/tokens', { body: { name: 'b' } })).body.token as string);
    expect((await api(h, '/api/me', { auth: basic('x', a.token) })).status).toBe(200);
    expect((await client.call(`/api/tokens/${a.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await client.call(`/api/tokens/${a.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await api(h, '/api/me', { auth: basic('x', a.token) })).status).toBe(401);
    expect((await api(h, '/api/me', { auth: basic('x', b) })).status).toBe(200);
    await h.asRoot('/api/users/alice', { method: 'PATCH', body: { disabled: true } });
    expect((await api(h, '/api/me', { auth: basic('x', b) })).status).toBe(401);
    const onFormat = await fetch(`${h.url}/raw/files/a.txt`, { headers: { authorization: basic('x', b) } });
    expect(onFormat.status).toBe(401);
    expect(onFormat.headers.get('www-authenticate')).toMatch(/Basic/);
  });

  it('expires after expires_in_days; refuses out-of-range expiries and duplicate names', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    for (const bad of [0, 36501, 1.5, '3']) {
      expect((await client.call('/api/tokens', { body: { name: `t${bad}`, expires_in_days: bad } })).status, String(bad)).toBe(400);
    }
    expect((await client.call('/api/tokens', { body: {} })).status).toBe(400);
    expect((await client.call('/api/tokens', { body: { name: 'max', expires_in_days: 36500 } })).status).toBe(201);
    const t = h.secret((await client.call('/api/tokens', { body: { name: 'short', expires_in_days: 1 } })).body.token as string);
    expect((await client.call('/api/tokens', { body: { name: 'short' } })).status).toBe(409);
    // Another user may use the same name.
    const bob = (await h.withTotp('bob')).client;
    expect((await bob.call('/api/tokens', { body: { name: 'short' } })).status).toBe(201);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 86_400_000 + 1000 });
    expect((await api(h, '/api/me', { auth: basic('x', t) })).status).toBe(401);
  });

  it('updates last used at most once a minute', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    const t = h.secret((await client.call('/api/tokens', { body: { name: 'a' } })).body.token as string);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    await api(h, '/api/me', { auth: basic('x', t) });
    const first = (await client.call('/api/tokens')).body.items[0].last_used_at;
    vi.setSystemTime(Date.now() + 30_000);
    await api(h, '/api/me', { auth: basic('x', t) });
    expect((await client.call('/api/tokens')).body.items[0].last_used_at).toBe(first);
    vi.setSystemTime(Date.now() + 31_000);
    await api(h, '/api/me', { auth: basic('x', t) });
    expect((await client.call('/api/tokens')).body.items[0].last_used_at).not.toBe(first);
  });

  it('answers a bad or tampered token with 401 and counts it toward the rate limit', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    const t = h.secret((await client.call('/api/tokens', { body: { name: 'a' } })).body.token as string);
    const tampered = t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await api(h, '/api/me', { auth: basic('x', tampered) })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
  });

  it('lists only the caller\'s own tokens, paginated, and cannot delete someone else\'s', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    for (const n of ['a', 'b', 'c']) h.secret((await client.call('/api/tokens', { body: { name: n } })).body.token);
    const bob = await h.user('bob');
    const bobSession = (await h.withTotp('bobby')).client;
    const page1 = await client.call('/api/tokens?limit=2');
    expect(page1.body.items.map((t: any) => t.name)).toEqual(['c', 'b']);
    const page2 = await client.call(`/api/tokens?limit=2&after=${page1.body.next}`);
    expect(page2.body).toMatchObject({ items: [{ name: 'a' }], next: '' });
    // A cursor whose time is no millisecond timestamp (1e400 parses as Infinity) is refused, not run as a query.
    const notATime = Buffer.from('[1e400,"x"]').toString('base64url');
    expect((await client.call(`/api/tokens?after=${notATime}`)).status).toBe(400);
    expect((await api(h, '/api/tokens', { auth: basic('bob', bob) })).body.items).toEqual([]);
    expect((await bobSession.call(`/api/tokens/${page2.body.items[0].id}`, { method: 'DELETE' })).status).toBe(404);
  });
});

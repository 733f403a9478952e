import { afterEach, describe, expect, it } from 'vitest';
import { api, basic, ROOT_PASSWORD, startAccounts, type Accounts } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const root = basic('root', ROOT_PASSWORD);

describe('admin audit log', () => {
  it('records user, repository, permission, settings and token changes with actor, time and client IP, never secret values', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    await h.asRoot('/api/users/alice', { method: 'PATCH', body: { email: 'alice@example.test', password: h.secret('alice-new-password') } });
    await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
    await h.asRoot('/api/repos/files', { method: 'PATCH', body: { anonymous_read: true } });
    await h.asRoot('/api/repos/files/permissions/alice', { method: 'PUT', body: { level: 'write' } });
    await h.asRoot('/api/repos/files/permissions/alice', { method: 'DELETE' });
    const secretValue = h.secret('s3-secret-value-123');
    expect((await h.asRoot('/api/settings', { method: 'PATCH', body: { 'log.level': 'info', 's3.secret_access_key': secretValue } })).status).toBe(200);
    const alice = h.sessionOf('alice');
    const t = await alice.call('/api/tokens', { body: { name: 'ci' } });
    h.secret(t.body.token);
    await alice.call(`/api/tokens/${t.body.id}`, { method: 'DELETE' });
    await api(h, '/api/me', { auth: basic('alice', password) }); // the old password: a failed attempt

    const r = await api(h, '/api/audit', { auth: basic('root', ROOT_PASSWORD) });
    expect(r.body.items.pop()).toMatchObject({ action: 'user.create', target: 'root', ip: '' }); // the bootstrap admin
    const entries = r.body.items.map((e: any) => [e.action, e.actor, e.target]);
    expect(entries).toEqual([
      ['auth.failed', 'alice', 'alice'],
      ['token.delete', 'alice', 'alice'],
      ['token.create', 'alice', 'alice'],
      ['settings.update', 'root', ''],
      ['permission.remove', 'root', 'files/alice'],
      ['permission.set', 'root', 'files/alice'],
      ['repo.update', 'root', 'files'],
      ['repo.create', 'root', 'files'],
      ['user.update', 'root', 'alice'],
      ['user.create', 'root', 'alice'],
    ]);
    for (const e of r.body.items) {
      expect(e.ip).toBe('127.0.0.1');
      expect(Date.now() - Date.parse(e.at)).toBeLessThan(60_000);
    }
    expect(r.body.items.find((e: any) => e.action === 'user.update').detail).toEqual({ fields: ['email', 'password'] });
    expect(r.body.items.find((e: any) => e.action === 'settings.update').detail).toEqual({ keys: ['log.level', 's3.secret_access_key'] });
    const all = JSON.stringify(r.body);
    for (const s of h.secrets) expect(all).not.toContain(s);
  });

  it("keeps a failed attempt's user name only when it names a user: a password or token typed into that field stays out", async () => {
    h = await startAccounts();
    await h.user('alice');
    const alice = h.sessionOf('alice');
    const token = (await alice.call('/api/tokens', { body: { name: 'ci' } })).body.token as string;
    const typedPassword = 'Root-Pass-XYZ-123456';
    expect((await api(h, '/api/auth/login', { body: { username: typedPassword, password: 'root' } })).status).toBe(401);
    expect((await api(h, '/api/me', { auth: basic(token, '') })).status).toBe(401); // `curl -u "$TOKEN:"`
    expect((await api(h, '/api/me', { auth: basic('alice', 'not-her-password') })).status).toBe(401);

    const items = (await api(h, '/api/audit', { auth: root })).body.items;
    const failed = items.filter((e: any) => e.action.endsWith('failed')).map((e: any) => [e.action, e.actor, e.target, e.detail.reason]);
    expect(failed).toEqual([
      ['auth.failed', 'alice', 'alice', undefined],
      ['auth.failed', '', '', 'unknown user'],
      ['login.failed', '', '', 'unknown user'],
    ]);
    const all = JSON.stringify(items);
    expect(all).not.toContain(typedPassword.slice(0, 8));
    expect(all).not.toContain(token.slice(0, 12));
  });

  it('is admin only and pages newest first', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    for (const n of ['a1', 'a2', 'a3']) await h.asRoot('/api/repos', { body: { name: n, format: 'raw' } });
    const p1 = await api(h, '/api/audit?limit=2', { auth: basic('root', ROOT_PASSWORD) });
    expect(p1.body.items.map((e: any) => e.target)).toEqual(['a3', 'a2']);
    const p2 = await api(h, `/api/audit?limit=2&after=${p1.body.next}`, { auth: basic('root', ROOT_PASSWORD) });
    expect(p2.body.items.map((e: any) => e.target)).toEqual(['a1', 'alice']);
    expect((await api(h, '/api/audit?after=nonsense', { auth: basic('root', ROOT_PASSWORD) })).status).toBe(400);
    expect((await api(h, '/api/audit', { auth: basic('alice', password) })).status).toBe(403);
  });

  it('filters by actor, action (a dotted prefix) and repository (its own entries and its permissions), server-side', async () => {
    h = await startAccounts();
    await h.user('alice', { admin: true });
    // Admin changes need a UI session (a Basic password only reads).
    const alice = h.sessionOf('alice');
    await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
    await alice.call('/api/repos', { body: { name: 'files2', format: 'raw' } });
    await alice.call('/api/repos', { body: { name: 'other_x', format: 'raw' } });
    await h.asRoot('/api/repos/files/permissions/alice', { method: 'PUT', body: { level: 'write' } });
    await alice.call('/api/repos/files', { method: 'PATCH', body: { anonymous_read: true } });
    const q = async (query: string) => (await api(h!, `/api/audit?${query}`, { auth: root })).body.items.map((e: any) => `${e.action} ${e.actor} ${e.target}`);

    expect(await q('repo=files')).toEqual(['repo.update alice files', 'permission.set root files/alice', 'repo.create root files']);
    expect(await q('actor=alice')).toEqual(['repo.update alice files', 'repo.create alice other_x', 'repo.create alice files2']);
    expect(await q('action=repo&actor=root')).toEqual(['repo.create root files']);
    expect(await q('action=repo.create&repo=other_x')).toEqual(['repo.create alice other_x']);
    expect(await q('action=rep')).toEqual([]); // a prefix only at a dot
    expect(await q('repo=other%25')).toEqual([]); // no wildcards
    // paging keeps the filter
    const p1 = await api(h, '/api/audit?action=repo&limit=2', { auth: root });
    const p2 = await api(h, `/api/audit?action=repo&limit=2&after=${p1.body.next}`, { auth: root });
    expect([...p1.body.items, ...p2.body.items].map((e: any) => e.target)).toEqual(['files', 'other_x', 'files2', 'files']);
    expect(p2.body.next).toBe('');
    expect((await api(h, `/api/audit?actor=${'x'.repeat(201)}`, { auth: root })).status).toBe(400);
  });

  it('records the client IP behind a trusted proxy, and limits failed attempts per that IP', async () => {
    h = await startAccounts({ env: { TR_TRUSTED_PROXIES: '127.0.0.1/32' } });
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    // The attempt is taken before the (slow) password check, so of 12 parallel guesses from one
    // address at most the burst of 10 get an answer and the rest 429, however slow scrypt runs.
    const tries = await Promise.all(
      Array.from({ length: 12 }, (_, i) => api(h!, '/api/auth/login', { body: { username: `nobody${i}`, password: 'wrong-password' }, headers: from('203.0.113.7') })),
    );
    const statuses = tries.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    // Another client address is not affected.
    expect((await api(h, '/api/auth/login', { body: { username: 'root', password: ROOT_PASSWORD }, headers: from('198.51.100.2') })).status).toBe(200);
    const items = (await api(h, '/api/audit', { auth: basic('root', ROOT_PASSWORD) })).body.items;
    expect(items[0]).toMatchObject({ action: 'login', ip: '198.51.100.2' });
    expect(items.filter((e: any) => e.action === 'login.failed').every((e: any) => e.ip === '203.0.113.7')).toBe(true);
    expect(items[items.length - 1]).toMatchObject({ action: 'user.create', target: 'root', detail: { bootstrap: true } });
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashPassword } from '../../src/index.js';
import { api, basic, ROOT_PASSWORD, startAccounts, type Accounts } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
  h = undefined;
});

const root = basic('root', ROOT_PASSWORD);

describe('sign-in state table', () => {

  it('explains a sign-in from a plain-http page the browser could not keep Secure cookies for, before any password check', async () => {
    h = await startAccounts({ env: { TR_BASE_URL: 'http://trove.lan:8080' } });
    const password = await h.user('alice');
    const login = (origin: string) => api(h!, '/api/auth/login', { body: { username: 'alice', password }, headers: { origin } });
    const plain = await login('http://trove.lan:8080');
    expect(plain.status).toBe(400);
    expect(plain.body.error).toMatch(/https.*cookie\.secure|cookie\.secure.*https/i);
    expect(plain.headers.getSetCookie()).toEqual([]);
    // Browsers keep Secure cookies on localhost pages, and cookie.secure off means no Secure flag at all.
    expect((await login(h.url)).status).toBe(200);
    await h.close();
    h = await startAccounts({ env: { TR_BASE_URL: 'http://trove.lan:8080', TR_COOKIE_SECURE: 'false' } });
    await h.user('alice', { password });
    expect((await login('http://trove.lan:8080')).status).toBe(200);
  });
  it('none -> setup-only session for a user without a second factor: /api/me, /api/security and logout only', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    const c = h.client();
    const r = await c.call('/api/auth/login', { body: { username: 'alice', password } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ username: 'alice', kind: 'local', second_factor_required: true });
    const cookie = r.headers.getSetCookie().find((l) => l.startsWith('tr_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/Path=\//);
    expect((await c.call('/api/me')).body).toMatchObject({ username: 'alice', second_factor_required: true });
    expect((await c.call('/api/security')).status).toBe(200);
    expect((await c.call('/api/repos')).status).toBe(403);
    expect((await c.call('/api/tokens')).status).toBe(403);
    expect((await c.call('/api/devices')).status).toBe(403);
    // The same browser can still sign in again.
    expect((await c.call('/api/auth/login', { body: { username: 'alice', password } })).status).toBe(200);
    expect((await c.call('/api/auth/logout', { method: 'POST' })).status).toBe(204);
    expect((await c.call('/api/me')).status).toBe(401);
  });

  it('turns a setup-only session into a full session when its first TOTP authenticator is confirmed', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    expect((await client.call('/api/me')).body.second_factor_required).toBe(false);
    expect((await client.call('/api/repos')).status).toBe(200);
  });

  it('none -> pending sign-in (tr_login) for a user with a second factor; correct TOTP -> full session', async () => {
    h = await startAccounts();
    const { totp, password } = await h.withTotp('alice');
    const c = h.client();
    const r = await c.call('/api/auth/login', { body: { username: 'alice', password } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ second_factor: true, methods: ['totp'] });
    expect(r.headers.getSetCookie().some((l) => l.startsWith('tr_session='))).toBe(false);
    const login = r.headers.getSetCookie().find((l) => l.startsWith('tr_login='))!;
    expect(login).toMatch(/HttpOnly/);
    expect(login).toMatch(/Path=\/api\/auth/);
    // A pending sign-in is not a session.
    expect((await c.call('/api/me')).status).toBe(401);
    const second = await c.call('/api/auth/login/second', { body: { totp_code: totp.code(1) } });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ username: 'alice', second_factor_required: false });
    expect(c.cookies.has('tr_session')).toBe(true);
    expect(c.cookies.has('tr_login')).toBe(false);
    expect((await c.call('/api/repos')).status).toBe(200);
    expect((await c.call('/api/me')).body.username).toBe('alice');
  });

  it('pending -> wrong proof: 401 and the sign-in stays pending; an accepted code is not accepted again', async () => {
    h = await startAccounts();
    const { totp, password } = await h.withTotp('alice');
    const c = h.client();
    await c.call('/api/auth/login', { body: { username: 'alice', password } });
    const wrong = await c.call('/api/auth/login/second', { body: { totp_code: '000000' === totp.code(1) ? '111111' : '000000' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBeTruthy();
    const code = totp.code(1);
    expect((await c.call('/api/auth/login/second', { body: { totp_code: code } })).status).toBe(200);
    // Replay: the same code in a second sign-in is refused.
    const d = h.client();
    await d.call('/api/auth/login', { body: { username: 'alice', password } });
    expect((await d.call('/api/auth/login/second', { body: { totp_code: code } })).status).toBe(401);
  });

  it('pending -> expired sign-in: 401 after five minutes', async () => {
    h = await startAccounts();
    const { totp, password } = await h.withTotp('alice');
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const c = h.client();
    await c.call('/api/auth/login', { body: { username: 'alice', password } });
    vi.setSystemTime(Date.now() + 5 * 60_000 + 1000);
    const r = await c.call('/api/auth/login/second', { body: { totp_code: totp.code() } });
    expect(r.status).toBe(401);
    expect(r.body.error).toMatch(/expired/);
  });

  it('answers /api/auth/login/second without a pending sign-in with 401', async () => {
    h = await startAccounts();
    expect((await h.client().call('/api/auth/login/second', { body: { totp_code: '123456' } })).status).toBe(401);
    expect((await h.client().call('/api/auth/login/passkey', { method: 'POST' })).status).toBe(401);
  });

  it('signs in with a recovery code once; the code is spent', async () => {
    h = await startAccounts();
    const { client, password } = await h.withTotp('alice');
    const codes = (await client.call('/api/security/recovery-codes', { method: 'POST' })).body.codes as string[];
    codes.forEach((x) => h!.secret(x));
    const c = h.client();
    const r = await c.call('/api/auth/login', { body: { username: 'alice', password } });
    expect(r.body.methods).toEqual(['totp', 'recovery_code']);
    expect((await c.call('/api/auth/login/second', { body: { recovery_code: codes[0] } })).status).toBe(200);
    expect((await c.call('/api/security')).body.recovery_codes).toBe(9);
    const d = h.client();
    await d.call('/api/auth/login', { body: { username: 'alice', password } });
    expect((await d.call('/api/auth/login/second', { body: { recovery_code: codes[0] } })).status).toBe(401);
  });
});

describe('sign-in refusals', () => {
  it('answers a wrong password or unknown user with 401', async () => {
    h = await startAccounts();
    await h.user('alice');
    expect((await api(h, '/api/auth/login', { body: { username: 'alice', password: 'wrong-password' } })).status).toBe(401);
    expect((await api(h, '/api/auth/login', { body: { username: 'nobody', password: 'wrong-password' } })).status).toBe(401);
    expect((await api(h, '/api/auth/login', { body: { username: 'alice' } })).status).toBe(400);
  });

  it('answers an SSO user with the 401 of an unknown user (SSO admin names do not leak); the audit log tells them apart', async () => {
    h = await startAccounts();
    h.ctx.users.create({ username: 'sso-admin', kind: 'oidc', isAdmin: true });
    const r = await api(h, '/api/auth/login', { body: { username: 'sso-admin', password: 'anything-at-all' } });
    const unknown = await api(h, '/api/auth/login', { body: { username: 'nobody-here', password: 'anything-at-all' } });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(unknown.body);
    const audit = await h.asRoot('/api/audit?action=login.failed');
    expect(audit.body.items.map((e: any) => e.detail.reason).sort()).toEqual(['sso user', 'unknown user']);
  });

  it('answers a local admin with 403 when admin_password_login is off; other local users still sign in', async () => {
    h = await startAccounts({
      env: {
        TR_OIDC_ISSUER: 'https://idp.example.test',
        TR_OIDC_CLIENT_ID: 'trove',
        TR_OIDC_CLIENT_SECRET: 'client-secret',
        TR_OIDC_ADMIN_VALUES: 'admins',
        TR_ADMIN_PASSWORD_LOGIN: 'false',
      },
    });
    const r = await api(h, '/api/auth/login', { body: { username: 'root', password: ROOT_PASSWORD } });
    expect(r.status).toBe(403);
    expect((await api(h, '/api/auth/config')).body).toEqual({ password_login: true, oidc: true, admin_password_login: false });
    // root's password is no admin credential now (not even over Basic), so alice is created directly.
    h.ctx.users.create({ username: 'alice', passwordHash: await hashPassword('alice-password-1') });
    expect((await api(h, '/api/auth/login', { body: { username: 'alice', password: 'alice-password-1' } })).status).toBe(200);
  });

  it('reports the sign-in configuration', async () => {
    h = await startAccounts();
    expect((await api(h, '/api/auth/config')).body).toEqual({ password_login: true, oidc: false, admin_password_login: true });
  });

  it('limits failed sign-ins per user name: 429 with Retry-After, even with the right password', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    // Ten failures empty the bucket; on a loaded machine a token may come back (one per 6 s)
    // while scrypt runs, so keep failing until the limiter answers, within a bound.
    const statuses: number[] = [];
    for (let i = 0; i < 20 && !statuses.includes(429); i++) {
      statuses.push((await api(h, '/api/auth/login', { body: { username: 'alice', password: 'wrong-password' } })).status);
    }
    expect(statuses.filter((st) => st === 401).length).toBeGreaterThanOrEqual(10);
    expect(statuses.at(-1)).toBe(429);
    const r = await api(h, '/api/auth/login', { body: { username: 'alice', password } });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts wrong second-factor codes: 429 after ten', async () => {
    h = await startAccounts();
    const { totp, password } = await h.withTotp('alice');
    const c = h.client();
    await c.call('/api/auth/login', { body: { username: 'alice', password } });
    const bad = ['000000', '111111'].find((x) => ![-1, 0, 1].some((o) => totp.code(o) === x))!;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await c.call('/api/auth/login/second', { body: { totp_code: bad } })).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    const r = await c.call('/api/auth/login/second', { body: { totp_code: totp.code() } });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeTruthy();
  });
});

describe('UI sessions', () => {
  it('ends at logout, and only that session', async () => {
    h = await startAccounts();
    const { client, totp, password } = await h.withTotp('alice');
    const other = h.client();
    await other.call('/api/auth/login', { body: { username: 'alice', password } });
    expect((await other.call('/api/auth/login/second', { body: { totp_code: totp.code(1) } })).status).toBe(200);
    expect((await client.call('/api/auth/logout', { method: 'POST' })).status).toBe(204);
    expect((await client.call('/api/me')).status).toBe(401);
    expect((await other.call('/api/me')).status).toBe(200);
  });

  it('lives exactly session_ttl from sign-in', async () => {
    h = await startAccounts({ env: { TR_SESSION_TTL: '1h' } });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { client } = await h.withTotp('alice');
    vi.setSystemTime(Date.now() + 59 * 60_000);
    expect((await client.call('/api/me')).status).toBe(200);
    vi.setSystemTime(Date.now() + 2 * 60_000);
    expect((await client.call('/api/me')).status).toBe(401);
  });

  it('stops at once when the user is disabled or an admin sets a new password', async () => {
    h = await startAccounts();
    const { client: a } = await h.withTotp('alice');
    const { client: b } = await h.withTotp('bob');
    expect((await h.asRoot('/api/users/alice', { method: 'PATCH', body: { disabled: true } })).status).toBe(200);
    expect((await a.call('/api/me')).status).toBe(401);
    expect((await h.asRoot('/api/users/bob', { method: 'PATCH', body: { password: h.secret('bob-new-password') } })).status).toBe(200);
    expect((await b.call('/api/me')).status).toBe(401);
  });

  it('keeps the own session of a user who changes their password, and ends their others', async () => {
    h = await startAccounts();
    const { client, totp, password } = await h.withTotp('alice');
    const other = h.client();
    await other.call('/api/auth/login', { body: { username: 'alice', password } });
    await other.call('/api/auth/login/second', { body: { totp_code: totp.code(1) } });
    const r = await client.call('/api/users/alice', { method: 'PATCH', body: { password: h.secret('alice-new-password'), current_password: password } });
    expect(r.status).toBe(200);
    expect((await client.call('/api/me')).status).toBe(200);
    expect((await other.call('/api/me')).status).toBe(401);
  });

  it('leaves the Secure attribute off when cookie.secure is false', async () => {
    h = await startAccounts({ env: { TR_COOKIE_SECURE: 'false' } });
    const password = await h.user('alice');
    const r = await api(h, '/api/auth/login', { body: { username: 'alice', password } });
    const cookie = r.headers.getSetCookie().find((l) => l.startsWith('tr_session='))!;
    expect(cookie).not.toMatch(/Secure/);
  });

  it('ignores the session cookie on format routes', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
    await h.asRoot('/api/repos/files/permissions/alice', { method: 'PUT', body: { level: 'read' } });
    expect((await client.call('/api/repos/files')).status).toBe(200);
    const r = await client.call('/raw/files/a.txt');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/Basic/);
  });

  it('records sign-ins and failed attempts with client IPs in the admin audit log', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    await api(h, '/api/auth/login', { body: { username: 'alice', password: 'wrong-password' } });
    await api(h, '/api/auth/login', { body: { username: 'alice', password } });
    const r = await api(h, '/api/audit?limit=2', { auth: basic('root', ROOT_PASSWORD) });
    expect(r.status).toBe(200);
    expect(r.body.items.map((e: any) => e.action)).toEqual(['login', 'login.failed']);
    expect(r.body.items[0]).toMatchObject({ actor: 'alice', ip: '127.0.0.1', target: 'alice' });
    expect(r.body.next).toBeTruthy();
    const next = await api(h, `/api/audit?after=${r.body.next}`, { auth: basic('root', ROOT_PASSWORD) });
    expect(next.body.items[0].action).toBe('user.create');
    expect((await api(h, '/api/audit', { auth: basic('alice', password) })).status).toBe(403);
    expect((await api(h, '/api/audit')).status).toBe(401);
  });
});

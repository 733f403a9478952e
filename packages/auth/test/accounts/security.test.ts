import { afterEach, describe, expect, it, vi } from 'vitest';
import { UiSessionStore } from '../../src/sessions/ui-sessions.js';
import { SoftAuthenticator } from './authenticator.js';
import { api, BASE_URL, basic, ROOT_PASSWORD, startAccounts, Totp, type Accounts, type Client } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
  h = undefined;
});

/** Registers a software passkey through begin/finish, as the UI does with navigator.credentials.create. */
async function addPasskey(c: Client, name = 'laptop') {
  const key = new SoftAuthenticator(BASE_URL);
  const begin = await c.call('/api/security/passkeys/begin', { method: 'POST' });
  expect(begin.status).toBe(200);
  expect(begin.body.publicKey.rp).toEqual({ name: 'Trove', id: 'trove.example.test' });
  const finish = await c.call('/api/security/passkeys/finish', { body: { name, credential: key.create(begin.body.publicKey) } });
  expect(finish.status).toBe(201);
  return { key, id: finish.body.id as string };
}

describe('TOTP authenticators', () => {
  it('shows the secret once at begin, confirms with a current code, lists and deletes', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    const c = h.client();
    await c.call('/api/auth/login', { body: { username: 'alice', password } });
    const begin = await c.call('/api/security/totp/begin', { body: { name: 'phone' } });
    expect(begin.status).toBe(200);
    expect(Object.keys(begin.body).sort()).toEqual(['otpauth_url', 'secret', 'setup_id']);
    expect(begin.body.otpauth_url).toMatch(/^otpauth:\/\/totp\/Trove:alice\?secret=/);
    const totp = new Totp(h.secret(begin.body.secret));
    expect((await c.call('/api/security/totp/confirm', { body: { setup_id: begin.body.setup_id, code: '12345' } })).status).toBe(400);
    const ok = await c.call('/api/security/totp/confirm', { body: { setup_id: begin.body.setup_id, code: totp.code() } });
    expect(ok.status).toBe(201);
    expect(Object.keys(ok.body).sort()).toEqual(['created_at', 'id', 'name']);
    expect(ok.body.name).toBe('phone');
    const sec = await c.call('/api/security');
    expect(sec.body).toEqual({ totp: [ok.body], passkeys: [], recovery_codes: 0, second_factor: true });
    expect(JSON.stringify(sec.body)).not.toContain(totp.secret);
    // The setup is spent.
    expect((await c.call('/api/security/totp/confirm', { body: { setup_id: begin.body.setup_id, code: totp.code(1) } })).status).toBe(404);
    expect((await c.call(`/api/security/totp/${ok.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await c.call(`/api/security/totp/${ok.body.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await c.call('/api/security')).body.second_factor).toBe(false);
  });

  it('lets a setup be confirmed for ten minutes only', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    const c = h.client();
    await c.call('/api/auth/login', { body: { username: 'alice', password } });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const begin = await c.call('/api/security/totp/begin', { body: { name: 'phone' } });
    const totp = new Totp(h.secret(begin.body.secret));
    vi.setSystemTime(Date.now() + 10 * 60_000 + 1000);
    const r = await c.call('/api/security/totp/confirm', { body: { setup_id: begin.body.setup_id, code: totp.code() } });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatch(/expired/);
  });
});

describe('recovery codes', () => {
  it('hands out 10 codes once, replaces the set, and shows only the unused count', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    const first = await client.call('/api/security/recovery-codes', { method: 'POST' });
    expect(first.status).toBe(201);
    expect(first.body.codes).toHaveLength(10);
    expect(new Set(first.body.codes).size).toBe(10);
    first.body.codes.forEach((x: string) => h!.secret(x));
    expect((await client.call('/api/security')).body.recovery_codes).toBe(10);
    const second = await client.call('/api/security/recovery-codes', { method: 'POST' });
    second.body.codes.forEach((x: string) => h!.secret(x));
    const sec = await client.call('/api/security');
    expect(sec.body.recovery_codes).toBe(10);
    expect(JSON.stringify(sec.body)).not.toContain(second.body.codes[0]);
    // The old set no longer signs in.
    const c = h.client();
    await c.call('/api/auth/login', { body: { username: 'alice', password: 'alice-password-1' } });
    expect((await c.call('/api/auth/login/second', { body: { recovery_code: first.body.codes[0] } })).status).toBe(401);
    expect((await c.call('/api/auth/login/second', { body: { recovery_code: second.body.codes[3].toUpperCase() } })).status).toBe(200);
  });
});

describe('passkeys', () => {
  it('registers a passkey from a real attestation and signs in with a real assertion', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    const setup = h.client();
    expect((await setup.call('/api/auth/login', { body: { username: 'alice', password } })).body.second_factor_required).toBe(true);
    const { key, id } = await addPasskey(setup);
    expect((await setup.call('/api/me')).body.second_factor_required).toBe(false);
    expect((await setup.call('/api/security')).body.passkeys).toMatchObject([{ id, name: 'laptop' }]);

    const c = h.client();
    const r = await c.call('/api/auth/login', { body: { username: 'alice', password } });
    expect(r.body).toEqual({ second_factor: true, methods: ['passkey'] });
    const opts = await c.call('/api/auth/login/passkey', { method: 'POST' });
    expect(opts.status).toBe(200);
    expect(opts.body.publicKey.allowCredentials).toMatchObject([{ id: key.id }]);
    const assertion = key.get(opts.body.publicKey);
    expect((await c.call('/api/auth/login/second', { body: { passkey: assertion } })).status).toBe(200);
    expect((await c.call('/api/repos')).status).toBe(200);
  });

  it('refuses an assertion for another origin, a replayed assertion and an unknown key', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    const setup = h.client();
    await setup.call('/api/auth/login', { body: { username: 'alice', password } });
    const { key } = await addPasskey(setup);
    const c = h.client();
    await c.call('/api/auth/login', { body: { username: 'alice', password } });
    let opts = await c.call('/api/auth/login/passkey', { method: 'POST' });
    expect((await c.call('/api/auth/login/second', { body: { passkey: key.get(opts.body.publicKey, { origin: 'https://evil.example.test' }) } })).status).toBe(401);
    opts = await c.call('/api/auth/login/passkey', { method: 'POST' });
    const stranger = new SoftAuthenticator(BASE_URL);
    expect((await c.call('/api/auth/login/second', { body: { passkey: stranger.get(opts.body.publicKey) } })).status).toBe(401);
    opts = await c.call('/api/auth/login/passkey', { method: 'POST' });
    const good = key.get(opts.body.publicKey);
    expect((await c.call('/api/auth/login/second', { body: { passkey: good } })).status).toBe(200);
    const d = h.client();
    await d.call('/api/auth/login', { body: { username: 'alice', password } });
    await d.call('/api/auth/login/passkey', { method: 'POST' });
    expect((await d.call('/api/auth/login/second', { body: { passkey: good } })).status).toBe(401);
  });

  it('refuses a registration signed for another origin or without a begun ceremony', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    const key = new SoftAuthenticator(BASE_URL);
    const begin = await client.call('/api/security/passkeys/begin', { method: 'POST' });
    const bad = await client.call('/api/security/passkeys/finish', { body: { name: 'x', credential: key.create(begin.body.publicKey, { origin: 'https://evil.example.test' }) } });
    expect(bad.status).toBe(400);
    expect((await client.call('/api/security/passkeys/finish', { body: { name: 'x', credential: key.create(begin.body.publicKey) } })).status).toBe(400);
    expect((await client.call('/api/security')).body.passkeys).toEqual([]);
  });

  it('deletes a passkey, after which it no longer signs in', async () => {
    h = await startAccounts();
    const { client, password } = await h.withTotp('alice');
    const { key, id } = await addPasskey(client);
    expect((await client.call(`/api/security/passkeys/${id}`, { method: 'DELETE' })).status).toBe(204);
    const c = h.client();
    expect((await c.call('/api/auth/login', { body: { username: 'alice', password } })).body.methods).toEqual(['totp']);
    const opts = await c.call('/api/auth/login/passkey', { method: 'POST' });
    expect((await c.call('/api/auth/login/second', { body: { passkey: key.get({ ...opts.body.publicKey, rpId: 'trove.example.test' }) } })).status).toBe(401);
  });

  it('answers every passkey route with 409 when base_url is empty', async () => {
    h = await startAccounts({ env: { TR_BASE_URL: '' } });
    const { client, password } = await h.withTotp('alice');
    for (const [path, method] of [
      ['/api/security/passkeys/begin', 'POST'],
      ['/api/security/passkeys/finish', 'POST'],
      ['/api/security/passkeys/assert', 'POST'],
      ['/api/security/passkeys/abc', 'DELETE'],
    ] as const) {
      const r = await client.call(path, { method, body: method === 'POST' ? {} : undefined });
      expect(r.status, path).toBe(409);
      expect(r.body.error).toMatch(/base_url/);
    }
    const c = h.client();
    await c.call('/api/auth/login', { body: { username: 'alice', password } });
    expect((await c.call('/api/auth/login/passkey', { method: 'POST' })).status).toBe(409);
  });
});

describe('second-factor routes accept only a UI session', () => {
  it('answers Basic passwords and read tokens with 403 and anonymous callers with 401', async () => {
    h = await startAccounts();
    const { client, password } = await h.withTotp('alice');
    const token = h.secret((await client.call('/api/tokens', { body: { name: 'ci' } })).body.token as string);
    // Every /api/security route the app serves, from Hono's route table (not a hand-kept list).
    const routes = [
      ...new Set(
        h.s.app.routes
          .filter((r) => r.path.startsWith('/api/security') && ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method))
          .map((r) => `${r.path.replace(/:[^/]+/g, 'x')} ${r.method}`),
      ),
    ].map((k) => k.split(' ') as [string, string]);
    expect(routes.length).toBeGreaterThanOrEqual(9);
    for (const [path, method] of routes) {
      const body = method === 'POST' ? {} : undefined;
      expect((await api(h, path, { method, body, auth: basic('alice', password) })).status, `${method} ${path} password`).toBe(403);
      expect((await api(h, path, { method, body, auth: basic('x', token) })).status, `${method} ${path} token`).toBe(403);
      expect((await api(h, path, { method, body })).status, `${method} ${path} anonymous`).toBe(401);
    }
  });

  it('refuses SSO users a second factor (403)', async () => {
    h = await startAccounts();
    const sso = h.ctx.users.create({ username: 'sso', kind: 'oidc' });
    // SSO sign-in is a later issue: open its UI session through the same store it will use.
    const { token } = new UiSessionStore(h.ctx).create(sso, false);
    const c = h.client();
    c.cookies.set('tr_session', h.secret(token));
    expect((await c.call('/api/me')).body).toMatchObject({ username: 'sso', kind: 'oidc', second_factor_required: false });
    expect((await c.call('/api/security/totp/begin', { body: { name: 'x' } })).status).toBe(403);
    expect((await c.call('/api/security/passkeys/begin', { method: 'POST' })).status).toBe(403);
    expect((await c.call('/api/security/recovery-codes', { method: 'POST' })).status).toBe(403);
    expect((await c.call('/api/tokens', { body: { name: 'x' } })).status).toBe(403);
  });
});

describe('audit', () => {
  it('records second-factor changes', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    await client.call('/api/security/recovery-codes', { method: 'POST' }).then((r) => r.body.codes.forEach((x: string) => h!.secret(x)));
    const actions = (await api(h, '/api/audit', { auth: basic('root', ROOT_PASSWORD) })).body.items.map((e: any) => e.action);
    expect(actions.slice(0, 3)).toEqual(['recovery_codes.replace', 'totp.add', 'login']);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { api, startAccounts, type Accounts } from '../accounts/harness.js';
import { DiscoveryCache } from '../../src/sso/discovery.js';
import { TestProvider } from './provider.js';
import { ACCOUNTS, Browser, CLIENT_ID, CLIENT_SECRET, startSso, type Sso } from './harness.js';

let sso: Sso | undefined;
let h: Accounts | undefined;
let idp: TestProvider | undefined;
afterEach(async () => {
  await sso?.close();
  await h?.close();
  await idp?.stop();
  sso = h = idp = undefined;
});

const DISCOVERY = '/.well-known/openid-configuration';
/** An address nothing listens on. */
const DEAD = 'http://127.0.0.1:9';

describe('when SSO is on', () => {
  it('is off (404, config says so) until issuer, client, secret, admin values or emails and a redirect URL are all set', async () => {
    h = await startAccounts();
    expect((await api(h, '/api/auth/oidc/login')).status).toBe(404);
    expect((await api(h, '/api/auth/config')).body).toEqual({ password_login: true, oidc: false, admin_password_login: true });
    await h.close();
    h = undefined;

    sso = await startSso();
    expect((await api(sso.h, '/api/auth/config')).body.oidc).toBe(true);
    const off = async (change: Record<string, unknown>, restore: Record<string, unknown>) => {
      sso!.h.ctx.settings.setInternal(change as never);
      const r = await api(sso!.h, '/api/auth/oidc/login');
      expect(r.status).toBe(404);
      expect(r.body.error).toMatch(/SSO/);
      expect((await api(sso!.h, '/api/auth/config')).body.oidc).toBe(false);
      sso!.h.ctx.settings.setInternal(restore as never);
      expect((await api(sso!.h, '/api/auth/config')).body.oidc).toBe(true);
    };
    await off({ 'oidc.admin_values': null }, { 'oidc.admin_values': ['admins'] });
    await off({ 'oidc.client_secret': null }, { 'oidc.client_secret': CLIENT_SECRET });
    await off({ 'oidc.client_id': null }, { 'oidc.client_id': CLIENT_ID });
    await off({ base_url: null }, { base_url: sso.h.url });
    await off({ 'oidc.issuer': '   ' }, { 'oidc.issuer': sso.idp.issuer });
    // admin emails alone are enough
    sso.h.ctx.settings.setInternal({ 'oidc.admin_values': null, 'oidc.admin_emails': ['ops@example.test'] });
    expect((await api(sso.h, '/api/auth/config')).body.oidc).toBe(true);
  });

  it('answers 503 when discovery fails: provider down, or its issuer differs (a trailing slash must match)', async () => {
    sso = await startSso({ settings: { 'oidc.issuer': DEAD } });
    const r = await api(sso.h, '/api/auth/oidc/login');
    expect(r.status).toBe(503);
    expect(r.body.error).toMatch(/identity provider/);
    sso.h.ctx.settings.setInternal({ 'oidc.issuer': `${sso.idp.issuer}/` });
    expect((await api(sso.h, '/api/auth/oidc/login')).status).toBe(503);
    const logged = sso.h.logs.join('');
    expect(logged).toMatch(/SSO discovery failed/);
    expect(logged).toMatch(/oidc.issuer must match it exactly/);
    // Only whitespace is trimmed.
    sso.h.ctx.settings.setInternal({ 'oidc.issuer': ` ${sso.idp.issuer}\n` });
    expect((await new Browser(sso).request(`${sso.h.url}/api/auth/oidc/login`)).status).toBe(302);
  });

  it('uses oidc.redirect_url when set', async () => {
    sso = await startSso();
    const localhost = sso.h.url.replace('127.0.0.1', 'localhost');
    sso.h.ctx.settings.setInternal({ 'oidc.redirect_url': `${localhost}/api/auth/oidc/callback` });
    const b = new Browser(sso);
    const start = await b.request(`${localhost}/api/auth/oidc/login`);
    expect(new URL(start.location!).searchParams.get('redirect_uri')).toBe(`${localhost}/api/auth/oidc/callback`);
    expect(await b.signIn('alice', `${localhost}/api/auth/oidc/login`)).toBe('/');
  });

  it('sends the client secret in the form body to a provider that accepts only client_secret_post', async () => {
    sso = await startSso({ tokenAuth: 'client_secret_post' });
    expect(await new Browser(sso).signIn('alice')).toBe('/');
  });
});

describe('the discovery document', () => {
  it('is cached, refreshed after its lifetime, and served stale through a provider outage', async () => {
    idp = await TestProvider.start({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: ['http://127.0.0.1/cb'], accounts: ACCOUNTS });
    const warnings: string[] = [];
    const cache = new DiscoveryCache({ refreshMs: 200, maxStaleMs: 60_000, warn: (m) => warnings.push(m) });
    const first = await cache.get(idp.issuer);
    expect(first.as.token_endpoint).toBe(`${idp.issuer}/token`);
    await Promise.all([cache.get(idp.issuer), cache.get(idp.issuer)]);
    expect(idp.requests.get(DISCOVERY)).toBe(1);
    await new Promise((r) => setTimeout(r, 250));
    await Promise.all([cache.get(idp.issuer), cache.get(idp.issuer)]);
    expect(idp.requests.get(DISCOVERY)).toBe(2);
    const issuer = idp.issuer;
    await idp.stop();
    idp = undefined;
    await new Promise((r) => setTimeout(r, 250));
    expect((await cache.get(issuer)).as.issuer).toBe(issuer);
    // The next sign-ins use the copy without waiting on the dead provider again.
    expect((await cache.get(issuer)).as.issuer).toBe(issuer);
    expect(warnings).toEqual(['SSO discovery refresh failed; using the cached document']);
    await expect(new DiscoveryCache().get(issuer)).rejects.toThrow(/discovery at .* failed/);
  });
});

describe('settings changes', () => {
  it('fetches discovery before saving an issuer, client or scope change and saves nothing when it fails', async () => {
    sso = await startSso();
    const { client } = await sso.h.withTotp('ops', { admin: true });
    const fetched = () => sso!.idp.requests.get(DISCOVERY) ?? 0;

    // A new issuer comes with its client secret (the next test).
    const bad = await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.issuer': DEAD, 'oidc.client_id': 'other', 'oidc.client_secret': 'dead-secret' } });
    expect(bad.status).toBe(400);
    expect(bad.body.fields['oidc.issuer']).toMatch(/discovery at http:\/\/127.0.0.1:9 failed/);
    expect(sso.h.ctx.settings.get('oidc.issuer')).toBe(sso.idp.issuer);
    expect(sso.h.ctx.settings.get('oidc.client_id')).toBe(CLIENT_ID);

    // credentials in the issuer would be shown to admins and sent with discovery: refused before any fetch
    const before = fetched();
    const withUser = await client.call('/api/settings', {
      method: 'PATCH',
      body: { 'oidc.issuer': sso.idp.issuer.replace('://', '://idp:hunter2@'), 'oidc.client_secret': CLIENT_SECRET },
    });
    expect(withUser.status).toBe(400);
    expect(withUser.body.fields['oidc.issuer']).toMatch(/must not carry credentials/);
    expect(fetched()).toBe(before);

    const slash = await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.issuer': `${sso.idp.issuer}/`, 'oidc.client_secret': CLIENT_SECRET } });
    expect(slash.status).toBe(400);
    expect(slash.body.fields['oidc.issuer']).toMatch(/the provider's issuer is/);

    let n = fetched();
    expect((await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.client_secret': 'rotated-secret-2' } })).status).toBe(200);
    expect(fetched()).toBe(n + 1);
    sso.h.secret('rotated-secret-2');
    expect(sso.h.ctx.settings.get('oidc.client_secret')).toBe('rotated-secret-2');

    // Admin values, emails and the session lifetime need no provider round trip.
    n = fetched();
    expect((await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.admin_values': ['admins', 'ops'], 'oidc.session_ttl': '1h' } })).status).toBe(200);
    expect(fetched()).toBe(n);

    // Turning SSO off needs no provider either.
    expect((await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.issuer': '' } })).status).toBe(200);
    expect((await api(sso.h, '/api/auth/oidc/login')).status).toBe(404);
  });

  it('asks for the client secret again when the issuer changes: a stored secret never goes to another provider', async () => {
    sso = await startSso();
    const { client } = await sso.h.withTotp('ops', { admin: true });
    const other = await TestProvider.start({ clientId: CLIENT_ID, clientSecret: 'other-provider-secret', redirectUris: [sso.callback], accounts: ACCOUNTS });
    try {
      const moved = await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.issuer': other.issuer } });
      expect(moved.status).toBe(400);
      expect(moved.body.fields['oidc.client_secret']).toMatch(/enter it again/);
      const kept = await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.issuer': other.issuer, 'oidc.client_secret': '' } }); // "" keeps a secret
      expect(kept.status).toBe(400);
      expect(sso.h.ctx.settings.get('oidc.issuer')).toBe(sso.idp.issuer);

      sso.h.secret('other-provider-secret');
      expect((await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.issuer': other.issuer, 'oidc.client_secret': 'other-provider-secret' } })).status).toBe(200);
      // Other settings, and the issuer's own provider, still need nothing more.
      expect((await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.client_id': CLIENT_ID } })).status).toBe(200);
      // Turned off, the secret goes nowhere; turned on again, it is asked for once more.
      expect((await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.issuer': '' } })).status).toBe(200);
      expect((await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.issuer': other.issuer } })).status).toBe(400);
    } finally {
      await other.stop();
    }
  });

  it('refuses to move the issuer of a client secret the environment sets', async () => {
    const h = await startAccounts({ env: { TR_OIDC_CLIENT_SECRET: 'env-client-secret' } });
    try {
      h.ctx.settings.setInternal({ 'oidc.issuer': 'https://idp.example.test' });
      const { client } = await h.withTotp('ops', { admin: true });
      const moved = await client.call('/api/settings', { method: 'PATCH', body: { 'oidc.issuer': DEAD } });
      expect(moved.status).toBe(400);
      expect(moved.body.fields['oidc.issuer']).toMatch(/TR_OIDC_CLIENT_SECRET sets oidc.client_secret/);
    } finally {
      await h.close();
    }
  });

  it('POST /api/settings/oidc/test tries the merged settings without saving', async () => {
    sso = await startSso();
    const { client } = await sso.h.withTotp('ops', { admin: true });
    expect(await client.call('/api/settings/oidc/test', { body: {} })).toMatchObject({ status: 200, body: { ok: true } });
    const bad = await client.call('/api/settings/oidc/test', { body: { 'oidc.issuer': DEAD } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ ok: false, error: expect.stringMatching(/discovery at http:\/\/127.0.0.1:9 failed/) });
    expect(sso.h.ctx.settings.get('oidc.issuer')).toBe(sso.idp.issuer);
    expect((await client.call('/api/settings/oidc/test', { body: { 'oidc.issuer': `${sso.idp.issuer}/` } })).body.ok).toBe(false);
    expect((await client.call('/api/settings/oidc/test', { body: { 'oidc.issuer': '' } })).body).toEqual({ ok: false, error: 'oidc.issuer is empty' });
    expect((await client.call('/api/settings/oidc/test', { body: { 'oidc.redirect_url': 'javascript:alert(1)' } })).status).toBe(400);
    expect((await client.call('/api/settings/oidc/test', { body: { 'oidc.issuer': 42 } })).status).toBe(400);
    expect((await client.call('/api/settings/oidc/test', { body: [] })).status).toBe(400);
    // Admins only.
    const { client: dev } = await sso.h.withTotp('dev');
    expect((await dev.call('/api/settings/oidc/test', { body: {} })).status).toBe(403);
    expect((await api(sso.h, '/api/settings/oidc/test', { body: {} })).status).toBe(401);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { Browser, startSso, type Sso } from './harness.js';

let sso: Sso | undefined;
afterEach(async () => {
  await sso?.close();
  sso = undefined;
});

describe('SSO sign-in against a real OpenID Connect provider', () => {
  it('signs an admin in: redirect to the provider with PKCE S256, state and nonce, back to /, a session of oidc.session_ttl', async () => {
    sso = await startSso({ settings: { 'oidc.session_ttl': '2h', 'oidc.scopes': 'profile email groups' } });
    const b = new Browser(sso);
    const start = await b.request(`${sso.h.url}/api/auth/oidc/login`);
    expect(start.status).toBe(302);
    const auth = new URL(start.location!);
    expect(auth.origin + auth.pathname).toBe(`${sso.idp.issuer}/auth`);
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      client_id: 'trove',
      redirect_uri: sso.callback,
      response_type: 'code',
      scope: 'openid profile email groups',
      code_challenge_method: 'S256',
    });
    for (const p of ['state', 'nonce', 'code_challenge']) expect(auth.searchParams.get(p)).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    const stateCookie = start.setCookies.find((l) => l.startsWith('tr_oidc='))!;
    expect(stateCookie).toMatch(/HttpOnly/);
    expect(stateCookie).toMatch(/SameSite=Lax/);
    expect(stateCookie).toMatch(/Path=\/api\/auth\/oidc/);
    expect(stateCookie).toMatch(/Max-Age=600/);

    const before = Date.now();
    // Same browser, same started sign-in: follow the provider back to the callback.
    let url = start.location!;
    while (!url.startsWith(sso.callback)) url = (await b.request(url)).location!;
    const back = await b.request(url);
    expect(back.status).toBe(302);
    expect(new URL(back.location!).pathname + new URL(back.location!).hash).toBe('/');
    const session = back.setCookies.find((l) => l.startsWith('tr_session='))!;
    expect(session).toMatch(/HttpOnly/);
    const expires = Date.parse(/Expires=([^;]+)/.exec(session)![1]!);
    expect(expires - before).toBeGreaterThan(2 * 3_600_000 - 60_000);
    expect(expires - before).toBeLessThanOrEqual(2 * 3_600_000 + 60_000);
    expect(b.cookies(sso.h.url).has('tr_oidc')).toBe(false);

    const me = await b.api('/api/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'alice', kind: 'oidc', email: 'alice@example.test', is_admin: true, second_factor_required: false });
    expect((await b.api('/api/settings')).status).toBe(200);
  });
});

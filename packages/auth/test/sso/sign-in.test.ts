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

const DISCOVERY = '/.well-known/openid-configuration';

/** The operator's log lines about refused SSO sign-ins. */
const refusals = (s: Sso) =>
  s.h.logs
    .join('')
    .split('\n')
    .filter((l) => l.includes('SSO sign-in refused'))
    .map((l) => JSON.parse(l) as { reason: string; why: string });

describe('SSO users', () => {
  it('finds the same user at the next sign-in (by issuer and subject) and fetches discovery once for both', async () => {
    sso = await startSso();
    expect(await new Browser(sso).signIn('alice')).toBe('/');
    const b = new Browser(sso);
    expect(await b.signIn('alice')).toBe('/');
    expect(sso.idp.requests.get(DISCOVERY)).toBe(1);
    const users = sso.h.ctx.users.page({ limit: 50 }).items.map((u) => u.username);
    expect(users).toEqual(['alice', 'root']);
    // The user name was taken once: a new preferred_username does not rename or duplicate the account.
    sso.idp.account('alice').claims!.preferred_username = 'alice2';
    const c = new Browser(sso);
    expect(await c.signIn('alice')).toBe('/');
    expect((await c.api('/api/me')).body.username).toBe('alice');
  });

  it('takes the user name from the email local part when there is no preferred_username', async () => {
    sso = await startSso({
      accounts: [{ sub: 'u-123', claims: { preferred_username: undefined, email: 'carol.admin@example.test', email_verified: true, groups: ['admins'] } }],
    });
    const b = new Browser(sso);
    expect(await b.signIn()).toBe('/');
    expect((await b.api('/api/me')).body).toMatchObject({ username: 'carol.admin', kind: 'oidc' });
  });

  it('has no password, second factor, read tokens or publishing by hand or device', async () => {
    sso = await startSso();
    const b = new Browser(sso);
    await b.signIn('alice');
    expect((await b.api('/api/tokens', { body: { name: 'ci' } })).status).toBe(403);
    expect((await b.api('/api/security')).status).toBe(200);
    expect((await b.api('/api/security/totp/begin', { body: { name: 'phone' } })).status).toBe(403);
    expect((await b.api('/api/security/recovery-codes', { method: 'POST' })).status).toBe(403);
    expect((await b.api('/api/publish/sessions/manual', { body: { repo: 'any', totp_code: '123456' } })).status).toBe(403);
    expect((await b.api('/api/devices/approve', { body: { user_code: 'ABCD-EFGH', totp_code: '123456' } })).status).toBe(403);
    // Setting a password on oneself is refused for what it is, not counted as a wrong current password.
    const own = await b.api('/api/users/alice', { method: 'PATCH', body: { password: 'a-new-password-1', current_password: 'none' } });
    expect(own.status).toBe(400);
    expect(own.body.error).toMatch(/SSO users have no password/);
    // SPEC: a password sign-in of an SSO user is 401.
    const r = await b.api('/api/auth/login', { body: { username: 'alice', password: 'anything-at-all' } });
    expect(r.status).toBe(401);
  });

  it('re-evaluates admin rights at every sign-in', async () => {
    sso = await startSso();
    expect(await new Browser(sso).signIn('alice')).toBe('/');
    const held = new Browser(sso);
    await held.signIn('alice');
    sso.idp.account('alice').claims!.groups = ['developers'];
    expect(await new Browser(sso).signIn('alice')).toBe('/#/login?error=not_authorized');
    expect(sso.h.ctx.users.byName('alice')!.isAdmin).toBe(false);
    // A session from before the change no longer reaches admin routes.
    expect((await held.api('/api/settings')).status).toBe(403);
    sso.idp.account('alice').claims!.groups = ['admins'];
    expect(await new Browser(sso).signIn('alice')).toBe('/');
    expect(sso.h.ctx.users.byName('alice')!.isAdmin).toBe(true);
  });
});

describe('SSO refusals: /#/login?error=<reason>, the reason logged for the operator', () => {
  it('not_authorized: no admin claim value, and no account is created', async () => {
    sso = await startSso();
    expect(await new Browser(sso).signIn('bob')).toBe('/#/login?error=not_authorized');
    expect(sso.h.ctx.users.byName('bob')).toBeUndefined();
    expect(refusals(sso)).toEqual([expect.objectContaining({ reason: 'not_authorized', why: expect.stringContaining('bob') })]);
  });

  it('username_conflict: a local account holds the name', async () => {
    sso = await startSso();
    await sso.h.user('alice');
    expect(await new Browser(sso).signIn('alice')).toBe('/#/login?error=username_conflict');
    expect(sso.h.ctx.users.byName('alice')!.kind).toBe('local');
    expect(refusals(sso)[0]!.why).toMatch(/local account/);
  });

  it('username_conflict: another provider identity already holds the name', async () => {
    sso = await startSso({
      accounts: [
        { sub: 'one', claims: { preferred_username: 'admin', groups: ['admins'] } },
        { sub: 'two', claims: { preferred_username: 'admin', groups: ['admins'] } },
      ],
    });
    expect(await new Browser(sso).signIn('one')).toBe('/');
    expect(await new Browser(sso).signIn('two')).toBe('/#/login?error=username_conflict');
  });

  it('invalid_username: a name Trove cannot use', async () => {
    sso = await startSso({ accounts: [{ sub: 'x', claims: { preferred_username: 'not a name!', groups: ['admins'] } }] });
    expect(await new Browser(sso).signIn()).toBe('/#/login?error=invalid_username');
  });

  it('account_disabled: a disabled SSO user', async () => {
    sso = await startSso();
    const b = new Browser(sso);
    await b.signIn('alice');
    sso.h.ctx.users.update(sso.h.ctx.users.byName('alice')!.id, { disabled: true });
    expect((await b.api('/api/me')).status).toBe(401);
    expect(await new Browser(sso).signIn('alice')).toBe('/#/login?error=account_disabled');
  });

  it('sso_failed: an ID token the provider\'s published keys did not sign', async () => {
    sso = await startSso();
    sso.idp.serveRogueKeys = true;
    expect(await new Browser(sso).signIn('alice')).toBe('/#/login?error=sso_failed');
    expect(refusals(sso)[0]!.why).toMatch(/^ID token signature refused/);
    expect(sso.h.ctx.users.byName('alice')).toBeUndefined();
  });

  it('sso_failed: tampered state, missing state cookie, replayed callback, replayed code, provider error', async () => {
    sso = await startSso();
    const callback = async (b: Browser, url: string) => {
      const r = await b.request(url);
      expect(r.status).toBe(302);
      const hash = new URL(r.location!).hash;
      // A session cookie comes with success only.
      expect(r.setCookies.some((l) => l.startsWith('tr_session='))).toBe(hash === '');
      return hash;
    };
    // Tampered state: the started sign-in is used up, so even the right state fails afterwards.
    const b1 = new Browser(sso);
    const cb1 = new URL(await b1.toCallback(undefined, 'alice'));
    const cookie1 = b1.cookies(sso.h.url).get('tr_oidc')!;
    const tampered = new URL(cb1);
    tampered.searchParams.set('state', 'x' + cb1.searchParams.get('state')!.slice(1));
    expect(await callback(b1, tampered.href)).toBe('#/login?error=sso_failed');
    // The callback cleared the cookie; a client that keeps sending it finds the sign-in used up.
    b1.cookies(sso.h.url).set('tr_oidc', cookie1);
    expect(await callback(b1, cb1.href)).toBe('#/login?error=sso_failed');

    // A callback in a browser that did not start the sign-in.
    const b2 = new Browser(sso);
    const cb2 = await b2.toCallback(undefined, 'alice');
    expect(await callback(new Browser(sso), cb2)).toBe('#/login?error=sso_failed');

    // The same callback twice: the second one fails.
    const b3 = new Browser(sso);
    const cb3 = await b3.toCallback(undefined, 'alice');
    const cookie3 = b3.cookies(sso.h.url).get('tr_oidc')!;
    expect(await callback(b3, cb3)).toBe('');
    b3.cookies(sso.h.url).set('tr_oidc', cookie3);
    expect(await callback(b3, cb3)).toBe('#/login?error=sso_failed');

    // A used code under a fresh state: the provider refuses it.
    const fresh = new URL(await b3.toCallback(undefined, 'alice'));
    fresh.searchParams.set('code', new URL(cb3).searchParams.get('code')!);
    expect(await callback(b3, fresh.href)).toBe('#/login?error=sso_failed');

    // The provider answers with an error.
    const b4 = new Browser(sso);
    const start = await b4.request(`${sso.h.url}/api/auth/oidc/login`);
    const state = new URL(start.location!).searchParams.get('state')!;
    expect(await callback(b4, `${sso.callback}?error=access_denied&error_description=user+cancelled&state=${state}&iss=${encodeURIComponent(sso.idp.issuer)}`)).toBe('#/login?error=sso_failed');

    const whys = refusals(sso).map((r) => `${r.reason}: ${r.why}`);
    expect(whys).toEqual([
      expect.stringMatching(/^sso_failed: authorization response refused: .*state/),
      expect.stringMatching(/^sso_failed: unknown, used or expired state cookie/),
      expect.stringMatching(/^sso_failed: no sign-in in progress in this browser/),
      expect.stringMatching(/^sso_failed: unknown, used or expired state cookie/),
      expect.stringMatching(/^sso_failed: token response refused: invalid_grant/),
      expect.stringMatching(/^sso_failed: authorization response refused: access_denied: user cancelled/),
    ]);
    // The failures are in the audit log too, without tokens.
    const audit = sso.h.ctx.db.$client.prepare("select detail from audit_log where action = 'login.failed'").all() as { detail: string }[];
    expect(audit.length).toBe(6);
  });
});

describe('SSO sign-in limits', () => {
  it('limits sign-in starts per client IP, and does not count failed callbacks against it', async () => {
    sso = await startSso();
    const b = new Browser(sso);
    const start = () => b.request(`${sso!.h.url}/api/auth/oidc/login`);
    // Each start keeps a sign-in in progress and costs a discovery lookup: 20 at once, then one every 3 s.
    for (let i = 0; i < 20; i++) expect(new URL((await start()).location!).origin).toBe(new URL(sso.idp.issuer).origin);
    const limited = await start();
    expect(limited.status).toBe(302);
    expect(new URL(limited.location!).hash).toBe('#/login?error=rate_limited');
    expect(limited.setCookies.some((l) => l.startsWith('tr_oidc='))).toBe(false);

    // Failed callbacks are not failed sign-ins of the IP: what fails there is often not the caller's doing
    // (a provider outage, staff trying the admin-only SSO), and the IP's bucket also guards Maven and apt.
    const other = new Browser(sso);
    for (let i = 0; i < 12; i++) expect(new URL((await other.request(`${sso!.callback}?code=x&state=y`)).location!).hash).toBe('#/login?error=sso_failed');
    const password = await fetch(`${sso.h.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'nobody', password: 'whatever-password' }),
    });
    expect(password.status).toBe(401);
  });
});

describe('SSO from a browser that holds another sign-in', () => {
  it('starts and finishes from a setup-only session of a local user, replacing it', async () => {
    sso = await startSso();
    const password = await sso.h.user('dev');
    const local = sso.h.client();
    expect((await local.call('/api/auth/login', { body: { username: 'dev', password } })).status).toBe(200);
    const b = new Browser(sso);
    b.cookies(sso.h.url).set('tr_session', local.cookies.get('tr_session')!);
    expect(await b.signIn('alice')).toBe('/');
    expect((await b.api('/api/me')).body).toMatchObject({ username: 'alice', is_admin: true });
  });
});

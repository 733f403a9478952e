import { afterEach, describe, expect, it } from 'vitest';
import { api, basic, ROOT_PASSWORD } from '../accounts/harness.js';
import { Browser, startSso, type Sso } from './harness.js';

let sso: Sso | undefined;
afterEach(async () => {
  await sso?.close();
  sso = undefined;
});

const root = basic('root', ROOT_PASSWORD);

describe('admin_password_login false', () => {
  it('refuses local admins a password sign-in (403) and any admin route by Basic password; publishers and SSO admins go on', async () => {
    sso = await startSso();
    const s = sso;
    const h = s.h;
    await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
    await h.ctx.assets.commitBytes({ repo: h.ctx.repos.byName('files')!, path: 'a.txt', bytes: 'hello', contentType: 'text/plain', onExisting: 'deny', uploader: 'root' });
    const devPassword = await h.user('dev');
    expect((await api(h, '/api/auth/login', { body: { username: 'root', password: ROOT_PASSWORD } })).status).toBe(200);
    expect((await api(h, '/api/settings', { auth: root })).status).toBe(200);

    h.ctx.settings.setInternal({ admin_password_login: false });
    expect((await api(h, '/api/auth/config')).body).toEqual({ password_login: true, oidc: true, admin_password_login: false });
    const login = await api(h, '/api/auth/login', { body: { username: 'root', password: ROOT_PASSWORD } });
    expect(login.status).toBe(403);
    expect(login.body.error).toMatch(/SSO/);
    // A wrong password is still a 401: the 403 tells nothing to someone without the password.
    expect((await api(h, '/api/auth/login', { body: { username: 'root', password: 'wrong-password' } })).status).toBe(401);
    for (const [path, init] of [
      ['/api/settings', {}],
      ['/api/users', {}],
      ['/api/audit', {}],
      ['/api/publish/log', {}],
      ['/api/users/dev', { method: 'PATCH', body: { is_admin: true } }],
      ['/api/settings', { method: 'PATCH', body: { admin_password_login: true } }],
    ] as const) {
      expect([path, (await api(h, path, { auth: root, ...init })).status]).toEqual([path, 403]);
    }
    expect(h.ctx.users.byName('dev')!.isAdmin).toBe(false);
    // Reads are no admin route: the password still reads artifacts.
    expect((await fetch(`${h.url}/raw/files/a.txt`, { headers: { authorization: root } })).status).toBe(200);
    // Publishers (local non-admins) still sign in.
    expect((await api(h, '/api/auth/login', { body: { username: 'dev', password: devPassword } })).status).toBe(200);
    // SSO admins administer.
    const b = new Browser(s);
    expect(await b.signIn('alice')).toBe('/');
    expect((await b.api('/api/settings')).status).toBe(200);
  });

  it('needs SSO: without it the setting is refused, and when SSO goes away local admins sign in again', async () => {
    sso = await startSso();
    const h = sso.h;
    const { client } = await h.withTotp('ops', { admin: true });
    h.ctx.settings.setInternal({ 'oidc.issuer': null });
    const refused = await client.call('/api/settings', { method: 'PATCH', body: { admin_password_login: false } });
    expect(refused.status).toBe(400);
    expect(refused.body.fields.admin_password_login).toMatch(/SSO/);

    h.ctx.settings.setInternal({ 'oidc.issuer': sso.idp.issuer, admin_password_login: false });
    expect((await api(h, '/api/auth/login', { body: { username: 'root', password: ROOT_PASSWORD } })).status).toBe(403);
    // SSO off (here: its admin values removed) lifts the rule, so nobody is locked out.
    h.ctx.settings.setInternal({ 'oidc.admin_values': null });
    expect((await api(h, '/api/auth/config')).body).toEqual({ password_login: true, oidc: false, admin_password_login: true });
    expect((await api(h, '/api/auth/login', { body: { username: 'root', password: ROOT_PASSWORD } })).status).toBe(200);
    expect((await api(h, '/api/settings', { auth: root })).status).toBe(200);
  });
});

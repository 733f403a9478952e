import * as ed from '@noble/ed25519';
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

  it('strips the admin flag from a local admin\'s UI session that began before the switch, and gives it back when SSO goes away', async () => {
    sso = await startSso();
    const h = sso.h;
    const { client } = await h.withTotp('ops', { admin: true });
    expect((await client.call('/api/settings')).status).toBe(200);
    h.ctx.settings.setInternal({ admin_password_login: false });
    for (const path of ['/api/settings', '/api/users', '/api/audit', '/api/publish/log']) expect([path, (await client.call(path)).status]).toEqual([path, 403]);
    expect((await client.call('/api/users', { body: { username: 'mallory', password: 'mallory-password-1', is_admin: true } })).status).toBe(403);
    expect((await client.call('/api/me')).body).toMatchObject({ username: 'ops', is_admin: false });
    // The rule needs SSO: without it (here its admin values removed) the session administers again.
    h.ctx.settings.setInternal({ 'oidc.admin_values': null });
    expect((await client.call('/api/settings')).status).toBe(200);
  });

  it('refuses a local admin a device approval (403), by Basic password or by an older UI session, so no device gets admin write', async () => {
    sso = await startSso();
    const h = sso.h;
    await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
    const { client, totp, password } = await h.withTotp('ops', { admin: true });
    h.ctx.settings.setInternal({ admin_password_login: false });
    const publicKey = Buffer.from(await ed.getPublicKeyAsync(ed.utils.randomSecretKey())).toString('base64url');
    const en = await api(h, '/api/devices/enroll', { body: { name: 'laptop', kind: 'gradle', public_key: publicKey } });
    h.secret(en.body.device_code);
    const byBasic = await api(h, '/api/devices/approve', { auth: basic('ops', password), body: { user_code: en.body.user_code, totp_code: totp.code(1) } });
    expect(byBasic.status).toBe(403);
    expect(byBasic.body.error).toMatch(/SSO/);
    const bySession = await client.call('/api/devices/approve', { body: { user_code: en.body.user_code, totp_code: totp.code(-1) } });
    expect(bySession.status).toBe(403);
    expect((await api(h, '/api/devices/enroll/poll', { body: { device_code: en.body.device_code } })).body.error).toBe('authorization_pending');
  });
  it('takes the admin flag from a local admin\'s device and manual sessions approved before the switch: writes need explicit write permission', async () => {
    sso = await startSso();
    const h = sso.h;
    await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
    const repo = h.ctx.repos.byName('files')!;
    // ops holds no permission on files: while admin password sign-in is allowed, the admin flag is its write.
    const { client, totp } = await h.withTotp('ops', { admin: true });
    const secretKey = ed.utils.randomSecretKey();
    const publicKey = Buffer.from(await ed.getPublicKeyAsync(secretKey)).toString('base64url');
    const en = await api(h, '/api/devices/enroll', { body: { name: 'laptop', kind: 'gradle', public_key: publicKey } });
    h.secret(en.body.device_code);
    expect((await client.call('/api/devices/approve', { body: { user_code: en.body.user_code, totp_code: totp.code(1) } })).status).toBe(201);
    const deviceId = (await api(h, '/api/devices/enroll/poll', { body: { device_code: en.body.device_code } })).body.device_id as string;
    const deviceSession = async () => {
      const nonce = (await api(h, '/api/publish/challenge', { body: { device_id: deviceId } })).body.nonce;
      const signature = Buffer.from(await ed.signAsync(new TextEncoder().encode(`service publish v1\n${nonce}\n${deviceId}\nfiles`), secretKey)).toString('base64url');
      const r = await api(h, '/api/publish/sessions', { body: { device_id: deviceId, repo: 'files', nonce, signature } });
      if (r.body?.token) h.secret(r.body.token);
      return r;
    };
    const put = (token: string, path: string) => fetch(`${h.url}/raw/files/${path}`, { method: 'PUT', body: 'bits', headers: { authorization: basic('ops', token) } });
    const early = await deviceSession();
    expect(early.status).toBe(201);
    const manual = await client.call('/api/publish/sessions/manual', { body: { repo: 'files', totp_code: totp.code(-1) } });
    expect(manual.status).toBe(201);
    h.secret(manual.body.token);
    expect((await put(early.body.token, 'before.txt')).status).toBe(201);

    h.ctx.settings.setInternal({ admin_password_login: false });
    // Sessions opened before the switch: checked again on each write, without the flag.
    expect((await put(early.body.token, 'device.txt')).status).toBe(403);
    expect((await put(manual.body.token, 'manual.txt')).status).toBe(403);
    // A new session from the approved device: refused like any user without write.
    const later = await deviceSession();
    expect(later.status).toBe(403);
    expect(later.body.error).toMatch(/write permission/);
    expect(h.ctx.assets.get(repo, 'device.txt')).toBeFalsy();
    expect(h.ctx.assets.get(repo, 'manual.txt')).toBeFalsy();

    // Explicit write permission is what the device acts on now.
    h.ctx.permissions.set(repo, 'ops', 'write');
    const granted = await deviceSession();
    expect(granted.status).toBe(201);
    expect((await put(granted.body.token, 'granted.txt')).status).toBe(201);
    expect((await put(early.body.token, 'early-granted.txt')).status).toBe(201);
  });
});

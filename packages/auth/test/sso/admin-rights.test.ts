import { afterEach, describe, expect, it } from 'vitest';
import { Browser, startSso, type Sso } from './harness.js';

let sso: Sso | undefined;
afterEach(async () => {
  await sso?.close();
  sso = undefined;
});

const signIn = async (s: Sso, sub: string) => {
  const b = new Browser(s);
  const where = await b.signIn(sub);
  return where === '/' ? 'admin' : where.replace('/#/login?error=', '');
};

describe('admin rights from the provider', () => {
  it('follows a dotted admin claim into nested objects (realm_access.roles), as an array or a string', async () => {
    sso = await startSso({
      settings: { 'oidc.admin_claim': 'realm_access.roles', 'oidc.admin_values': ['trove-admin'] },
      accounts: [
        { sub: 'kc-admin', claims: { realm_access: { roles: ['offline_access', 'trove-admin'] } } },
        { sub: 'kc-single', claims: { realm_access: { roles: 'trove-admin' } } },
        { sub: 'kc-user', claims: { realm_access: { roles: ['offline_access'] } } },
        { sub: 'kc-flat', claims: { roles: ['trove-admin'], realm_access: {} } },
        { sub: 'kc-case', claims: { realm_access: { roles: ['Trove-Admin'] } } },
      ],
    });
    expect(await signIn(sso, 'kc-admin')).toBe('admin');
    expect(await signIn(sso, 'kc-single')).toBe('admin');
    expect(await signIn(sso, 'kc-user')).toBe('not_authorized');
    expect(await signIn(sso, 'kc-flat')).toBe('not_authorized');
    expect(await signIn(sso, 'kc-case')).toBe('not_authorized');
  });

  it('reads a namespaced claim whose name itself contains dots', async () => {
    sso = await startSso({
      settings: { 'oidc.admin_claim': 'https://trove.example/roles', 'oidc.admin_values': ['admin'] },
      accounts: [{ sub: 'auth0', claims: { 'https://trove.example/roles': ['admin'] } }],
    });
    expect(await signIn(sso, 'auth0')).toBe('admin');
  });

  it('merges userinfo: an admin claim only the userinfo endpoint carries counts', async () => {
    sso = await startSso({ accounts: [{ sub: 'late', userinfoOnly: { groups: ['admins'] } }, { sub: 'none', userinfoOnly: { groups: ['staff'] } }] });
    expect(await signIn(sso, 'late')).toBe('admin');
    expect(await signIn(sso, 'none')).toBe('not_authorized');
    expect(sso.idp.requests.get('/me')).toBe(2);
  });

  it('admits an allowlisted email only when the provider marks it verified', async () => {
    sso = await startSso({
      settings: { 'oidc.admin_values': [], 'oidc.admin_emails': ['Ops@Example.test'] },
      accounts: [
        { sub: 'ops', claims: { email: 'ops@example.test', email_verified: true } },
        { sub: 'unverified', claims: { preferred_username: 'ops2', email: 'ops@example.test', email_verified: false } },
        { sub: 'silent', claims: { preferred_username: 'ops3', email: 'ops@example.test' } },
        { sub: 'other', claims: { email: 'dev@example.test', email_verified: true } },
      ],
    });
    expect(await signIn(sso, 'unverified')).toBe('not_authorized');
    expect(await signIn(sso, 'silent')).toBe('not_authorized');
    expect(await signIn(sso, 'other')).toBe('not_authorized');
    expect(await signIn(sso, 'ops')).toBe('admin');
    expect(sso.h.ctx.users.byName('ops')).toMatchObject({ kind: 'oidc', isAdmin: true, email: 'ops@example.test' });
    const audit = sso.h.ctx.db.$client.prepare("select detail from audit_log where action = 'login'").all() as { detail: string }[];
    expect(audit.map((a) => JSON.parse(a.detail))).toEqual([{ sso: true, admin_by: 'email' }]);
  });
});

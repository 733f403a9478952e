import { afterEach, describe, expect, it } from 'vitest';
import { api, basic, ROOT_PASSWORD, startAccounts, type Accounts } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Their body carries a fresh second factor, so a Basic password may reach them (SPEC "session"). */
const FRESH_PROOF = new Set(['POST /api/devices/approve', 'POST /api/publish/sessions/manual']);

/** Every state-changing `/api/` route the running app serves, from Hono's route table. */
function apiWrites(h: Accounts): { method: string; path: string }[] {
  const seen = new Set<string>();
  const out: { method: string; path: string }[] = [];
  for (const r of h.s.app.routes) {
    if (!WRITES.has(r.method) || !r.path.startsWith('/api/')) continue;
    // `:param` segments (and a trailing wildcard) get a harmless placeholder.
    const path = r.path.replace(/:[^/]+/g, 'x').replace(/\*$/, 'x');
    const key = `${r.method} ${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ method: r.method, path });
  }
  return out;
}

describe('a password over HTTP Basic only reads (SPEC "Credentials")', () => {
  it('answers every state-changing /api/ route with 403 {error} to an admin password and to a read token', async () => {
    h = await startAccounts();
    const admin = await h.admin();
    const token = h.secret((await admin.call('/api/tokens', { body: { name: 'ci' } })).body.token as string);
    const routes = apiWrites(h);
    // The table really is the app's: it holds admin, account, token and publishing routes.
    for (const must of ['POST /api/users', 'PATCH /api/users/x', 'PATCH /api/settings', 'POST /api/repos', 'POST /api/tokens', 'DELETE /api/devices/x', 'POST /api/auth/logout', 'POST /api/publish/trusts']) {
      expect(routes.map((r) => `${r.method} ${r.path}`)).toContain(must);
    }
    for (const { method, path } of routes) {
      if (FRESH_PROOF.has(`${method} ${path}`)) continue;
      for (const [what, auth] of [['password', basic('root', ROOT_PASSWORD)], ['read token', basic('root', token)]] as const) {
        const r = await api(h, path, { method, auth, body: { username: 'mallory', password: 'mallory-password', is_admin: true } });
        expect(r.status, `${method} ${path} with a ${what}`).toBe(403);
        expect(typeof r.body.error, `${method} ${path} with a ${what}`).toBe('string');
      }
    }
    expect(h.ctx.users.byName('mallory')).toBeUndefined();
  });

  it('still reads with a password and a read token, and lets a password reach the fresh-proof routes', async () => {
    h = await startAccounts();
    const admin = await h.admin();
    const token = h.secret((await admin.call('/api/tokens', { body: { name: 'ci' } })).body.token as string);
    for (const auth of [basic('root', ROOT_PASSWORD), basic('any', token)]) {
      expect((await api(h, '/api/me', { auth })).status).toBe(200);
      expect((await api(h, '/api/users', { auth })).status).toBe(200);
      expect((await api(h, '/api/settings', { auth })).status).toBe(200);
    }
    // Past the credential rule: the route itself answers (no such code / wrong proof), not 403.
    const alice = await h.withTotp('alice');
    const approve = await api(h, '/api/devices/approve', { auth: basic('alice', alice.password), body: { user_code: 'NOPE-NOPE', totp_code: '000000' } });
    expect(approve.status).not.toBe(403);
    const manual = await api(h, '/api/publish/sessions/manual', { auth: basic('alice', alice.password), body: { repo: 'nope', totp_code: '000000' } });
    expect(manual.status).not.toBe(403);
  });

  it('lets no password alone change it or mint a read token past the second factor', async () => {
    h = await startAccounts();
    const { password } = await h.withTotp('alice');
    const alice = basic('alice', password);
    const change = await api(h, '/api/users/alice', { method: 'PATCH', auth: alice, body: { current_password: password, password: 'stolen-password-1' } });
    expect(change.status).toBe(403);
    expect((await api(h, '/api/tokens', { auth: alice, body: { name: 'stolen' } })).status).toBe(403);
    expect((await api(h, '/api/me', { auth: alice })).status).toBe(200);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { api, basic, ROOT_PASSWORD, startAccounts, type Accounts } from './harness.js';

/**
 * One server through every flow that hands out a secret, logging at debug level into a
 * captured destination; the last test scans the whole capture. (Every other test in this
 * folder does the same scan when its server closes.)
 */
describe('the server log during a whole sign-in, security and token session', () => {
  let h: Accounts;
  afterAll(() => h?.close());

  it('runs every flow that hands out a secret', async () => {
    h = await startAccounts();
    const wrong = h.secret('a-wrong-password-typed-by-alice');
    const { client, totp, password } = await h.withTotp('alice');
    await api(h, '/api/auth/login', { body: { username: 'alice', password: wrong } });
    await api(h, '/api/me', { auth: basic('alice', wrong) });
    const issued = await client.call('/api/security/recovery-codes', { method: 'POST' });
    const codes = issued.body.codes as string[];
    codes.forEach((c) => h.secret(c));
    const c = h.client();
    await c.call('/api/auth/login', { body: { username: 'alice', password } });
    await c.call('/api/auth/login/second', { body: { recovery_code: codes[1] } });
    const d = h.client();
    await d.call('/api/auth/login', { body: { username: 'alice', password } });
    expect((await d.call('/api/auth/login/second', { body: { totp_code: totp.fresh() } })).status).toBe(200);
    const created = await client.call('/api/tokens', { body: { name: 'ci' } });
    const token = h.secret(created.body.token as string);
    await api(h, '/api/me', { auth: basic('x', token) });
    await api(h, '/api/me', { auth: basic('x', token.slice(0, -2) + 'zz') });
    await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
    await h.asRoot('/api/repos/files/permissions/alice', { method: 'PUT', body: { level: 'write' } });
    const s = await client.call('/api/publish/sessions/manual', { body: { repo: 'files', totp_code: totp.fresh() } });
    expect(s.status).toBe(201);
    h.secret(s.body.token);
    // An answer holding a secret is never kept by a browser's or a proxy's cache.
    for (const answer of [issued, created, s]) expect(answer.headers.get('cache-control')).toBe('no-store');
    await fetch(`${h.url}/raw/files/a.txt`, { method: 'PUT', body: 'x', headers: { authorization: basic('ci', s.body.token) } });
    await client.call('/api/users/alice', { method: 'PATCH', body: { password: h.secret('alice-second-password'), current_password: password } });
    await client.call('/api/auth/logout', { method: 'POST' });
  });

  it('logged requests, and none of the passwords, TOTP seeds, recovery codes, tokens or cookies it handed out', () => {
    const log = h.logs.join('');
    expect(log).toMatch(/"msg":"signed in"/);
    expect(log).toMatch(/"path":"\/api\/auth\/login\/second"/);
    expect(h.secrets.size).toBeGreaterThan(15);
    const leaked = [...h.secrets].filter((s) => log.includes(s));
    expect(leaked).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { basic, ROOT_PASSWORD, startAccounts, type Accounts } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('an admin resets a user who lost their second factor', () => {
  it('removes every factor and ends their sessions; the next sign-in sets up a new factor', async () => {
    h = await startAccounts();
    const { client: alice, password } = await h.withTotp('alice');
    expect((await alice.call('/api/security/recovery-codes', { method: 'POST' })).status).toBe(201);

    // Only an admin, only with a signed-in session (a password over Basic only reads).
    const bob = (await h.withTotp('bob')).client;
    expect((await bob.call('/api/users/alice/second-factors', { method: 'DELETE' })).status).toBe(403);
    const basicRoot = await fetch(`${h.url}/api/users/alice/second-factors`, { method: 'DELETE', headers: { Authorization: basic('root', ROOT_PASSWORD) } });
    expect(basicRoot.status).toBe(403);
    expect((await alice.call('/api/security')).body).toMatchObject({ second_factor: true, recovery_codes: 10 });

    const reset = await h.asRoot('/api/users/alice/second-factors', { method: 'DELETE' });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ username: 'alice', second_factor_required: true });
    // Her session was proven by a factor that is gone.
    expect((await alice.call('/api/me')).status).toBe(401);
    const again = h.client();
    const login = await again.call('/api/auth/login', { body: { username: 'alice', password } });
    expect(login.status).toBe(200);
    expect(login.body.second_factor_required).toBe(true);
    expect((await again.call('/api/security')).body).toMatchObject({ totp: [], passkeys: [], recovery_codes: 0, second_factor: false });
    const audit = await h.asRoot('/api/audit?action=user.second_factor_reset');
    expect(audit.body.items[0]).toMatchObject({ actor: 'root', target: 'alice', detail: { totp: 1, passkeys: 0, recovery_codes: 10 } });

    // Not for oneself (the Security page does that) and not for an unknown user.
    expect((await h.asRoot('/api/users/root/second-factors', { method: 'DELETE' })).status).toBe(400);
    expect((await h.asRoot('/api/users/nobody/second-factors', { method: 'DELETE' })).status).toBe(404);
  });
});

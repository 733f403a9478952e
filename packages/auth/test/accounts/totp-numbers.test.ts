import * as ed from '@noble/ed25519';
import { afterEach, describe, expect, it } from 'vitest';
import { api, startAccounts, Totp, type Accounts } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * A TOTP code typed into a JSON client as a number (`"code": 012345` cannot be written, so it
 * arrives as `12345`) means the same 6 digits everywhere: setup, sign-in, approval, manual session.
 */
describe('TOTP codes sent as JSON numbers', () => {
  it('are zero-padded when confirming an authenticator and at the second sign-in step', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    const client = h.client();
    await client.call('/api/auth/login', { body: { username: 'alice', password } });
    // Begin setups until the seed's codes for this step and the next both start with 0 (1 in 100).
    let found: { setup_id: string; now: string; next: string } | undefined;
    for (let i = 0; i < 2000 && !found; i++) {
      const begin = await client.call('/api/security/totp/begin', { body: { name: 'phone' } });
      const totp = new Totp(h.secret(begin.body.secret));
      const [now, next] = [totp.code(0), totp.code(1)];
      if (now.startsWith('0') && next.startsWith('0')) found = { setup_id: begin.body.setup_id, now, next };
    }
    expect(found).toBeDefined();
    const confirm = await client.call('/api/security/totp/confirm', { body: { setup_id: found!.setup_id, code: Number(found!.now) } });
    expect(confirm.status).toBe(201);

    const browser = h.client();
    expect((await browser.call('/api/auth/login', { body: { username: 'alice', password } })).body.second_factor).toBe(true);
    const second = await browser.call('/api/auth/login/second', { body: { totp_code: Number(found!.next) } });
    expect(second.status).toBe(200);
    expect(second.body.second_factor_required).toBe(false);
  });

  it('approve a device and open a manual session', async () => {
    h = await startAccounts();
    const { client, totp } = await h.withTotp('alice');
    await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
    await h.asRoot('/api/repos/files/permissions/alice', { method: 'PUT', body: { level: 'write' } });
    const key = ed.utils.randomSecretKey();
    const publicKey = Buffer.from(await ed.getPublicKeyAsync(key)).toString('base64url');
    const en = await api(h, '/api/devices/enroll', { body: { name: 'laptop', kind: 'gradle', public_key: publicKey } });
    h.secret(en.body.device_code);
    const approve = await client.call('/api/devices/approve', { body: { user_code: en.body.user_code, totp_code: Number(totp.code(1)) } });
    expect(approve.status).toBe(201);
    const manual = await client.call('/api/publish/sessions/manual', { body: { repo: 'files', totp_code: Number(totp.code(-1)) } });
    expect(manual.status).toBe(201);
    h.secret(manual.body.token);
  });
});

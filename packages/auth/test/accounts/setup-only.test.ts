import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { RecoveryCodes } from '../../src/second-factor/recovery-codes.js';
import { startAccounts, Totp, type Accounts, type Client } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * Two browsers of alice signed in with only the password while she had no second factor: the
 * "attacker" one (a leaked password) and her own. She enrolls TOTP in her own.
 */
async function twoSetupSessions() {
  h = await startAccounts();
  const password = await h.user('alice');
  const attacker = h.client();
  const victim = h.client();
  for (const c of [attacker, victim]) {
    const r = await c.call('/api/auth/login', { body: { username: 'alice', password } });
    expect(r.body.second_factor_required).toBe(true);
  }
  return { attacker, victim, password };
}

/** Every route a setup-only session may use answers as to a caller without a session. */
async function expectSignedOut(c: Client) {
  expect((await c.call('/api/me')).status).toBe(401);
  expect((await c.call('/api/security')).status).toBe(401);
  expect((await c.call('/api/security/recovery-codes', { method: 'POST' })).status).toBe(401);
  expect((await c.call('/api/security/totp/begin', { body: { name: 'mine' } })).status).toBe(401);
}

describe('setup-only sessions once the user has a second factor', () => {
  it('ends every other setup-only session of the user when the first factor is added; the adding one becomes full', async () => {
    const { attacker, victim } = await twoSetupSessions();
    const totp = await victim.addTotp('alice phone');
    await expectSignedOut(attacker);
    const [factor] = (await victim.call('/api/security')).body.totp;
    expect((await attacker.call(`/api/security/totp/${factor.id}`, { method: 'DELETE' })).status).toBe(401);
    // Alice's own session was upgraded and her authenticator is intact.
    expect((await victim.call('/api/me')).body.second_factor_required).toBe(false);
    expect((await victim.call('/api/tokens', { body: { name: 'ci' } })).status).toBe(201);
    expect((await victim.call('/api/security')).body.totp).toHaveLength(1);
    expect(totp.secret).toBeTruthy();
  });

  it('stays ended when the user later removes every factor', async () => {
    const { attacker, victim } = await twoSetupSessions();
    await victim.addTotp();
    const [factor] = (await victim.call('/api/security')).body.totp;
    expect((await victim.call(`/api/security/totp/${factor.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectSignedOut(attacker);
  });

  it('refuses a factor confirmed on a setup-only session that ended while the request was in flight', async () => {
    const { attacker, victim } = await twoSetupSessions();
    const begin = await attacker.call('/api/security/totp/begin', { body: { name: 'attacker' } });
    const mine = new Totp(begin.body.secret);
    const cookie = [...attacker.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const payload = JSON.stringify({ setup_id: begin.body.setup_id, code: mine.code(1) });
    // The request's credential is resolved when its headers arrive; its body comes after alice enrolled.
    const url = new URL('/api/security/totp/confirm', h!.url);
    const answer = new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { cookie, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.write(payload.slice(0, 5));
      req.flushHeaders();
      setTimeout(async () => {
        await victim.addTotp('alice phone');
        req.end(payload.slice(5));
      }, 300);
    });
    expect(await answer).toBe(401);
    const factors = (await victim.call('/api/security')).body.totp;
    expect(factors.map((f: { name: string }) => f.name)).toEqual(['alice phone']);
    await expectSignedOut(attacker);
  });
});

describe('recovery codes and the first factor', () => {
  it('refuses recovery codes to a setup-only session (403 second_factor_required); the session upgraded by its first factor gets them', async () => {
    const { attacker, victim } = await twoSetupSessions();
    const refused = await attacker.call('/api/security/recovery-codes', { method: 'POST' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('second_factor_required');
    expect(refused.body.error).toMatch(/authenticator app or a passkey/);
    expect((await victim.call('/api/security')).body.recovery_codes).toBe(0);
    // The web UI's order: first factor, then codes, on the session the factor just upgraded.
    await victim.addTotp('alice phone');
    const codes = await victim.call('/api/security/recovery-codes', { method: 'POST' });
    expect(codes.status).toBe(201);
    expect(codes.body.codes).toHaveLength(10);
    codes.body.codes.forEach((x: string) => h!.secret(x));
    // A full session whose user removed every factor again has nothing for codes to recover either.
    const [factor] = (await victim.call('/api/security')).body.totp;
    expect((await victim.call(`/api/security/totp/${factor.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await victim.call('/api/security/recovery-codes', { method: 'POST' })).status).toBe(403);
  });

  it('discards recovery codes that existed before the first factor, so a password-only session\'s codes never sign in', async () => {
    const { attacker, victim, password } = await twoSetupSessions();
    // Codes minted by a setup-only session before this rule (the attacker's, from a leaked password).
    const alice = h!.ctx.users.byName('alice')!;
    const minted = new RecoveryCodes(h!.ctx).replace(alice.id).map((x) => h!.secret(x));
    expect((await victim.call('/api/security')).body.recovery_codes).toBe(10);
    await victim.addTotp('alice phone');
    await expectSignedOut(attacker);
    expect((await victim.call('/api/security')).body.recovery_codes).toBe(0);
    const again = h!.client();
    expect((await again.call('/api/auth/login', { body: { username: 'alice', password } })).body).toEqual({ second_factor: true, methods: ['totp'] });
    expect((await again.call('/api/auth/login/second', { body: { recovery_code: minted[0] } })).status).toBe(401);
    expect((await again.call('/api/me')).status).toBe(401);
  });

  it('keeps the codes when a second factor is added to a user who has one already', async () => {
    h = await startAccounts();
    const { client, password } = await h.withTotp('alice');
    const codes = (await client.call('/api/security/recovery-codes', { method: 'POST' })).body.codes.map((x: string) => h!.secret(x));
    // A second authenticator (the next step's code: the first one's step is spent for this user).
    const begin = await client.call('/api/security/totp/begin', { body: { name: 'backup phone' } });
    const backup = new Totp(h.secret(begin.body.secret));
    expect((await client.call('/api/security/totp/confirm', { body: { setup_id: begin.body.setup_id, code: backup.code(1) } })).status).toBe(201);
    expect((await client.call('/api/security')).body.recovery_codes).toBe(10);
    const again = h.client();
    await again.call('/api/auth/login', { body: { username: 'alice', password } });
    expect((await again.call('/api/auth/login/second', { body: { recovery_code: codes[0] } })).status).toBe(200);
  });
});

import * as ed from '@noble/ed25519';
import { afterEach, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from './authenticator.js';
import { api, BASE_URL, basic, ROOT_PASSWORD, startAccounts, type Accounts } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const root = basic('root', ROOT_PASSWORD);

async function repoWithWriter(h: Accounts, user: string) {
  expect((await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } })).status).toBe(201);
  expect((await h.asRoot(`/api/repos/files/permissions/${user}`, { method: 'PUT', body: { level: 'write' } })).status).toBe(200);
}

const put = (h: Accounts, path: string, token: string, body = 'bytes') =>
  fetch(`${h.url}/raw/files/${path}`, { method: 'PUT', body, headers: { authorization: basic('ci', token) } });

async function enroll(h: Accounts) {
  const secret = ed.utils.randomSecretKey();
  const publicKey = Buffer.from(await ed.getPublicKeyAsync(secret)).toString('base64url');
  const en = await api(h, '/api/devices/enroll', { body: { name: 'laptop', kind: 'gradle', public_key: publicKey } });
  expect(en.status).toBe(200);
  h.secret(en.body.device_code);
  return { secret, en: en.body as { device_code: string; user_code: string } };
}

describe('fresh second-factor proof for publishing', () => {
  it('approves a device enrollment with a TOTP code; the device opens a session and a raw PUT lands', async () => {
    h = await startAccounts();
    const { client, totp } = await h.withTotp('alice');
    await repoWithWriter(h, 'alice');
    const { secret, en } = await enroll(h);
    expect((await client.call('/api/devices/approve', { body: { user_code: en.user_code, totp_code: '000000' === totp.code(1) ? '111111' : '000000' } })).status).toBe(401);
    const ok = await client.call('/api/devices/approve', { body: { user_code: en.user_code, totp_code: totp.code(1) } });
    expect(ok.status).toBe(201);
    const poll = await api(h, '/api/devices/enroll/poll', { body: { device_code: en.device_code } });
    const deviceId = poll.body.device_id as string;
    const nonce = (await api(h, '/api/publish/challenge', { body: { device_id: deviceId } })).body.nonce;
    const signature = Buffer.from(await ed.signAsync(new TextEncoder().encode(`service publish v1\n${nonce}\n${deviceId}\nfiles`), secret)).toString('base64url');
    const s = await api(h, '/api/publish/sessions', { body: { device_id: deviceId, repo: 'files', nonce, signature } });
    expect(s.status).toBe(201);
    h.secret(s.body.token);
    expect((await put(h, 'dev.txt', s.body.token)).status).toBe(201);
    expect(h.ctx.assets.get(h.ctx.repos.byName('files')!, 'dev.txt')?.uploader).toBe('alice');
  });

  it('opens a manual session with a fresh passkey assertion from /api/security/passkeys/assert', async () => {
    h = await startAccounts();
    const { client } = await h.withTotp('alice');
    await repoWithWriter(h, 'alice');
    const key = new SoftAuthenticator(BASE_URL);
    const begin = await client.call('/api/security/passkeys/begin', { method: 'POST' });
    expect((await client.call('/api/security/passkeys/finish', { body: { name: 'key', credential: key.create(begin.body.publicKey) } })).status).toBe(201);
    // Without a fresh challenge, an assertion proves nothing.
    const stale = key.get({ challenge: 'AAAAAAAAAAAAAAAAAAAAAA', rpId: 'trove.example.test' });
    expect((await client.call('/api/publish/sessions/manual', { body: { repo: 'files', passkey: stale } })).status).toBe(401);
    const opts = await client.call('/api/security/passkeys/assert', { method: 'POST' });
    expect(opts.status).toBe(200);
    const assertion = key.get(opts.body.publicKey);
    const s = await client.call('/api/publish/sessions/manual', { body: { repo: 'files', passkey: assertion } });
    expect(s.status).toBe(201);
    h.secret(s.body.token);
    expect((await put(h, 'manual.txt', s.body.token)).status).toBe(201);
    // The challenge is single use.
    expect((await client.call('/api/publish/sessions/manual', { body: { repo: 'files', passkey: assertion } })).status).toBe(401);
  });

  it('opens a manual session with a TOTP code once; refuses a replay and a recovery code', async () => {
    h = await startAccounts();
    const { client, totp } = await h.withTotp('alice');
    await repoWithWriter(h, 'alice');
    const codes = (await client.call('/api/security/recovery-codes', { method: 'POST' })).body.codes as string[];
    codes.forEach((c) => h!.secret(c));
    const code = totp.code(1);
    const s = await client.call('/api/publish/sessions/manual', { body: { repo: 'files', totp_code: code } });
    expect(s.status).toBe(201);
    h.secret(s.body.token);
    expect((await client.call('/api/publish/sessions/manual', { body: { repo: 'files', totp_code: code } })).status).toBe(401);
    expect((await client.call('/api/publish/sessions/manual', { body: { repo: 'files', recovery_code: codes[0] } })).status).toBe(401);
    expect((await client.call('/api/security')).body.recovery_codes).toBe(10);
  });

  it('limits wrong fresh proofs: 429 with Retry-After', async () => {
    h = await startAccounts();
    const { client, totp } = await h.withTotp('alice');
    await repoWithWriter(h, 'alice');
    const bad = ['000000', '111111'].find((x) => ![-1, 0, 1, 2].some((o) => totp.code(o) === x))!;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await client.call('/api/publish/sessions/manual', { body: { repo: 'files', totp_code: bad } })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    const r = await client.call('/api/publish/sessions/manual', { body: { repo: 'files', totp_code: totp.code(1) } });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses publishing to a local account without a second factor (403)', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    await repoWithWriter(h, 'alice');
    const { en } = await enroll(h);
    expect((await api(h, '/api/devices/approve', { auth: basic('alice', password), body: { user_code: en.user_code, totp_code: '123456' } })).status).toBe(403);
    expect((await api(h, '/api/publish/sessions/manual', { auth: basic('alice', password), body: { repo: 'files', totp_code: '123456' } })).status).toBe(403);
  });

  it('reports second_factor_required in /api/me and the users list', async () => {
    h = await startAccounts();
    await h.withTotp('alice');
    await h.user('bob');
    const list = await api(h, '/api/users', { auth: basic('root', ROOT_PASSWORD) });
    const byName = Object.fromEntries(list.body.items.map((u: any) => [u.username, u.second_factor_required]));
    expect(byName).toEqual({ alice: false, bob: true, root: true });
  });
});


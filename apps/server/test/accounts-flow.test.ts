import { generateKeyPairSync, sign } from 'node:crypto';
import { authenticator } from 'otplib';
import { afterEach, describe, expect, it } from 'vitest';
import { startProcess, type Running } from './process.js';

let srv: Running | undefined;
afterEach(async () => {
  await srv?.stop();
  srv = undefined;
});

const ROOT = { user: 'root', password: 'correct horse battery' };
const ENV = { TR_BOOTSTRAP_ADMIN_USER: ROOT.user, TR_BOOTSTRAP_ADMIN_PASSWORD: ROOT.password, TR_BASE_URL: 'https://trove.example.test' };
const basic = (u: string, p: string) => 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64');

/** A browser-like JSON client keeping the cookies the server sets. */
function browser(url: string) {
  const jar = new Map<string, string>();
  return async (path: string, body?: unknown, init: { method?: string; auth?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (init.auth) headers.authorization = init.auth;
    const r = await fetch(url + path, { method: init.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body: body !== undefined ? JSON.stringify(body) : undefined });
    for (const line of r.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (!value || /max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null, jar };
  };
}

/** Codes at distinct time steps around now, each usable once. */
const totpAt = (secret: string, step: number) => authenticator.clone({ epoch: Date.now() + step * 30_000 }).generate(secret);

describe('a local account publishing through the whole server', () => {
  it('sets up TOTP, approves a device enrollment, starts a manual session, and both raw PUTs land', async () => {
    srv = await startProcess(ENV);
    const url = srv.url;
    const admin = basic(ROOT.user, ROOT.password);
    // The admin's password over Basic only reads: admin changes need a UI session with a second factor.
    expect((await browser(url)('/api/users', { username: 'mallory', password: 'mallory-password-1' }, { auth: admin })).status).toBe(403);
    const asAdmin = browser(url);
    await asAdmin('/api/auth/login', { username: ROOT.user, password: ROOT.password });
    const rootTotp = (await asAdmin('/api/security/totp/begin', { name: 'phone' })).body;
    expect((await asAdmin('/api/security/totp/confirm', { setup_id: rootTotp.setup_id, code: totpAt(rootTotp.secret, 0) })).status).toBe(201);
    expect((await asAdmin('/api/users', { username: 'alice', password: 'alice-password-1' })).status).toBe(201);
    expect((await asAdmin('/api/repos', { name: 'files', format: 'raw' })).status).toBe(201);
    expect((await asAdmin('/api/repos/files/permissions/alice', { level: 'write' }, { method: 'PUT' })).status).toBe(200);

    // Sign in without a second factor: setup-only session, then a TOTP authenticator.
    const alice = browser(url);
    const login = await alice('/api/auth/login', { username: 'alice', password: 'alice-password-1' });
    expect(login.body).toMatchObject({ username: 'alice', second_factor_required: true });
    expect((await alice('/api/repos')).status).toBe(403);
    const begin = await alice('/api/security/totp/begin', { name: 'phone' });
    const secret = begin.body.secret as string;
    expect((await alice('/api/security/totp/confirm', { setup_id: begin.body.setup_id, code: totpAt(secret, -1) })).status).toBe(201);

    const codes = (await alice('/api/security/recovery-codes', {})).body.codes as string[];
    expect(codes).toHaveLength(10);

    // Sign in again on another browser: password, then a recovery code (TOTP codes are kept for publishing below).
    const again = browser(url);
    expect((await again('/api/auth/login', { username: 'alice', password: 'alice-password-1' })).body).toEqual({ second_factor: true, methods: ['totp', 'recovery_code'] });
    const second = await again('/api/auth/login/second', { recovery_code: codes[0] });
    expect(second.status).toBe(200);
    const sessionCookie = second.jar.get('tr_session')!;
    expect((await again('/api/me')).body).toMatchObject({ username: 'alice', second_factor_required: false });

    // A developer machine enrolls its key; alice approves with a fresh TOTP code.
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const rawPublic = (publicKey.export({ format: 'jwk' }) as { x: string }).x;
    const anon = browser(url);
    const enroll = await anon('/api/devices/enroll', { name: 'laptop', kind: 'gradle', public_key: rawPublic });
    expect(enroll.status).toBe(200);
    expect((await anon('/api/devices/enroll/poll', { device_code: enroll.body.device_code })).body.error).toBe('authorization_pending');
    // Kept as a string: recomputed later, it would be the next step's unspent code once a 30 s step boundary passed.
    const approvalCode = totpAt(secret, 0);
    expect((await alice('/api/devices/approve', { user_code: enroll.body.user_code, totp_code: approvalCode })).status).toBe(201);
    const poll = await anon('/api/devices/enroll/poll', { device_code: enroll.body.device_code });
    expect(poll.status).toBe(200);
    const deviceId = poll.body.device_id as string;
    const nonce = (await anon('/api/publish/challenge', { device_id: deviceId })).body.nonce as string;
    const signature = sign(null, Buffer.from(`service publish v1\n${nonce}\n${deviceId}\nfiles`), privateKey).toString('base64url');
    const device = await anon('/api/publish/sessions', { device_id: deviceId, repo: 'files', nonce, signature });
    expect(device.status).toBe(201);
    let put = await fetch(`${url}/raw/files/from-device.txt`, { method: 'PUT', body: 'device bytes', headers: { authorization: basic('gradle', device.body.token) } });
    expect(put.status).toBe(201);

    // A manual session from the browser signed in with the recovery code: a recovery code is
    // no fresh proof, a spent TOTP code neither; an unused one is.
    expect((await again('/api/publish/sessions/manual', { repo: 'files', recovery_code: codes[1] })).status).toBe(401);
    expect((await again('/api/publish/sessions/manual', { repo: 'files', totp_code: approvalCode })).status).toBe(401);
    const manual2 = await again('/api/publish/sessions/manual', { repo: 'files', totp_code: totpAt(secret, 1) });
    expect(manual2.status, JSON.stringify(manual2.body)).toBe(201);
    put = await fetch(`${url}/raw/files/by-hand.txt`, { method: 'PUT', body: 'manual bytes', headers: { authorization: basic('alice', manual2.body.token) } });
    expect(put.status).toBe(201);

    const list = await (await fetch(`${url}/api/repos/files/assets`, { headers: { authorization: admin } })).json();
    expect(list.items.map((a: { path: string; uploader: string }) => [a.path, a.uploader])).toEqual([
      ['by-hand.txt', 'alice'],
      ['from-device.txt', 'alice'],
    ]);
    // The audit log has the sign-ins with client IPs; the process log has no secret.
    const audit = await (await fetch(`${url}/api/audit?limit=200`, { headers: { authorization: admin } })).json();
    expect(audit.items.some((e: { action: string; ip: string }) => e.action === 'login' && e.ip === '127.0.0.1')).toBe(true);
    const out = srv.stdout() + srv.stderr();
    for (const s of [secret, device.body.token, manual2.body.token, sessionCookie, 'alice-password-1', enroll.body.device_code, ...codes]) expect(out).not.toContain(s);
  });
});

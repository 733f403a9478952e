import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import * as jose from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { signInWithTotp } from './ui/harness.js';
import { startProcess, type Running } from './process.js';

let srv: Running | undefined;
afterEach(async () => {
  await srv?.stop();
  srv = undefined;
});

const ADMIN = { TR_BOOTSTRAP_ADMIN_USER: 'root', TR_BOOTSTRAP_ADMIN_PASSWORD: 'correct horse battery' };
const adminBasic = { Authorization: 'Basic ' + Buffer.from('root:correct horse battery').toString('base64'), 'Content-Type': 'application/json' };
const ISS = 'https://ci.example.test';

/** The admin signed in with a second factor (a password over Basic only reads). */
async function adminSession(url: string) {
  const { cookie } = await signInWithTotp(url, 'root', 'correct horse battery');
  return { Cookie: cookie, 'Content-Type': 'application/json' };
}

/** Admin creates a raw repo and a CI trust policy; a signed CI identity token buys a publish session. */
async function ciSession(url: string, repo: string) {
  const adminAuth = await adminSession(url);
  expect((await fetch(`${url}/api/repos`, { method: 'POST', headers: adminAuth, body: JSON.stringify({ name: repo, format: 'raw', anonymous_read: true }) })).status).toBe(201);
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
  const jwks = { keys: [{ ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
  const policy = { name: 'ci', issuer: ISS, audience: 'trove', claims: { repository: ['acme/widgets'] }, jwks: JSON.stringify(jwks), repos: [repo] };
  expect((await fetch(`${url}/api/publish/trusts`, { method: 'POST', headers: adminAuth, body: JSON.stringify(policy) })).status).toBe(201);
  const jwt = await new jose.SignJWT({ repository: 'acme/widgets' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISS)
    .setAudience('trove')
    .setSubject('repo:acme/widgets:ref:refs/heads/main')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
  const r = await fetch(`${url}/api/publish/sessions/oidc`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: jwt, repo }) });
  expect(r.status).toBe(201);
  return (await r.json()) as { id: string; token: string; repo: string; expires_at: string };
}

const basic = (password: string) => 'Basic ' + Buffer.from(`ci:${password}`).toString('base64');

describe('the whole server', () => {
  it('prints a generated admin password once and that password signs in', async () => {
    srv = await startProcess();
    const m = /created admin user "admin" with password (\S+)/.exec(srv.stdout());
    expect(m).toBeTruthy();
    const me = await fetch(`${srv.url}/api/me`, { headers: { Authorization: 'Basic ' + Buffer.from(`admin:${m![1]}`).toString('base64') } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ username: 'admin', is_admin: true, kind: 'local' });
    const dataDir = srv.dataDir;
    await srv.stop();
    srv = await startProcess({}, dataDir);
    expect(srv.stdout()).not.toMatch(/with password/);
    expect(srv.stdout()).not.toContain(m![1]);
  });

  it('publishes from CI with a trust policy and serves the file to anonymous readers', async () => {
    srv = await startProcess(ADMIN);
    const session = await ciSession(srv.url, 'files');
    expect(session.token).toMatch(/^trs_/);
    let r = await fetch(`${srv.url}/raw/files/dist/app-1.0.tar.gz`, { method: 'PUT', body: Buffer.from('release bytes'), headers: { Authorization: basic(session.token) } });
    expect(r.status).toBe(201);
    r = await fetch(`${srv.url}/raw/files/dist/app-1.0.tar.gz`);
    expect(await r.text()).toBe('release bytes');
    const list = await (await fetch(`${srv.url}/api/repos/files/assets`)).json();
    expect(list.items[0]).toMatchObject({ path: 'dist/app-1.0.tar.gz', uploader: 'ci:acme/widgets' });
    // a password cannot write; the publish token gets 403 on other API routes
    r = await fetch(`${srv.url}/raw/files/x`, { method: 'PUT', body: 'x', headers: adminBasic });
    expect(r.status).toBe(401);
    expect((await r.json()).error).toMatch(/publishing needs a publish session/);
    expect((await fetch(`${srv.url}/api/repos`, { headers: { Authorization: basic(session.token) } })).status).toBe(403);
    // closing the session ends the token at once
    r = await fetch(`${srv.url}/api/publish/sessions/${session.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${session.token}` } });
    expect(r.status).toBe(204);
    r = await fetch(`${srv.url}/raw/files/y`, { method: 'PUT', body: 'y', headers: { Authorization: basic(session.token) } });
    expect(r.status).toBe(401);
    // no log line carries a token
    expect(srv.stdout()).not.toContain(session.token);
    expect(srv.stderr()).not.toContain(session.token);
  });

  it('loses nothing acknowledged and leaves no partial file when killed mid-upload', async () => {
    srv = await startProcess(ADMIN);
    const { token } = await ciSession(srv.url, 'files');
    expect((await fetch(`${srv.url}/raw/files/kept.txt`, { method: 'PUT', body: Buffer.from('acknowledged'), headers: { Authorization: basic(token) } })).status).toBe(201);
    // start a large chunked upload and kill the server while it streams
    await new Promise<void>((resolve) => {
      const req = request(`${srv!.url}/raw/files/half.bin`, { method: 'PUT', headers: { Authorization: basic(token), 'Transfer-Encoding': 'chunked' } });
      req.on('error', () => resolve());
      let sent = 0;
      const pump = () => {
        while (sent < 200 * 65536) {
          sent += 65536;
          if (sent === 40 * 65536) srv!.child.kill('SIGKILL');
          if (!req.write(Buffer.alloc(65536, 1))) return req.once('drain', pump);
        }
        req.end();
      };
      pump();
      srv!.child.once('exit', () => setTimeout(resolve, 100));
    });
    const dataDir = srv.dataDir;
    srv = await startProcess(ADMIN, dataDir);
    expect(readdirSync(join(dataDir, 'spool'))).toEqual([]);
    expect((await fetch(`${srv.url}/raw/files/half.bin`)).status).toBe(404);
    expect(await (await fetch(`${srv.url}/raw/files/kept.txt`)).text()).toBe('acknowledged');
  });

  it('rate limits failed sign-ins with 429 and Retry-After', async () => {
    srv = await startProcess(ADMIN);
    const bad = (i: number) => ({ Authorization: 'Basic ' + Buffer.from(`root:wrong password ${i}`).toString('base64') });
    // In parallel: the attempt is taken before the slow password check, so at most the burst of
    // 10 reach it however slowly scrypt runs (one after another, tokens come back meanwhile).
    const answers = await Promise.all(Array.from({ length: 15 }, (_, i) => fetch(`${srv!.url}/api/me`, { headers: bad(i) })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    const limited = answers.find((r) => r.status === 429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

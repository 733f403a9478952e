import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as jose from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { startS3Server, type TestS3Server } from '@trove/blobstore/testing/s3-server';
import { runToExit, startProcess, type Running } from './process.js';
import { signInWithTotp } from './ui/harness.js';

let srv: Running | undefined;
let s3: TestS3Server | undefined;
afterEach(async () => {
  await srv?.stop();
  await s3?.close();
  srv = s3 = undefined;
});

const ADMIN = { TR_BOOTSTRAP_ADMIN_USER: 'root', TR_BOOTSTRAP_ADMIN_PASSWORD: 'correct horse battery' };
/** Reads only: a password over Basic cannot change anything. */
const adminBasic = { Authorization: 'Basic ' + Buffer.from('root:correct horse battery').toString('base64') };
/** Changes need the admin signed in with a second factor; the session is in the database and outlives a restart. */
let adminAuth: Record<string, string> = {};
const ISS = 'https://ci.example.test';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A raw repo and a publish session for it, the way CI gets one. */
async function ciSession(url: string, repo: string): Promise<string> {
  const { cookie } = await signInWithTotp(url, 'root', 'correct horse battery');
  adminAuth = { Cookie: cookie, 'Content-Type': 'application/json' };
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
    .setExpirationTime('10m')
    .sign(privateKey);
  const r = await fetch(`${url}/api/publish/sessions/oidc`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: jwt, repo }) });
  expect(r.status).toBe(201);
  return ((await r.json()) as { token: string }).token;
}

async function move(url: string, id: string) {
  return (await (await fetch(`${url}/api/storage/moves/${id}`, { headers: adminBasic })).json()) as { state: string; copied: number; skipped: number; failed: number; total: number; old_removed: number | null };
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('storage in the real server', () => {
  it('refuses to start with TR_STORAGE=s3 and no bucket, endpoint or keys', async () => {
    const r = await runToExit({ TR_STORAGE: 's3' });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/TR_S3_BUCKET/);
  });

  it('resumes a move after the server is killed mid-move (SIGKILL) and finishes it', async () => {
    s3 = await startS3Server();
    srv = await startProcess(ADMIN);
    const dataDir = srv.dataDir;
    const token = await ciSession(srv.url, 'files');
    const files = new Map<string, Buffer>();
    for (let i = 0; i < 600; i++) files.set(`k/f${i}.bin`, randomBytes(i % 30 === 0 ? 90_000 : 1000 + i));
    const entries = [...files];
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < entries.length) {
        const [p, b] = entries[next++]!;
        const r = await fetch(`${srv!.url}/raw/files/${p}`, { method: 'PUT', body: b, headers: { Authorization: 'Basic ' + Buffer.from(`ci:${token}`).toString('base64') } });
        expect(r.status).toBe(201);
      }
    }));

    const r = await fetch(`${srv.url}/api/settings`, {
      method: 'PATCH',
      headers: adminAuth,
      body: JSON.stringify({ storage: 's3', 's3.endpoint': s3.endpoint, 's3.bucket': s3.bucket, 's3.region': s3.region, 's3.access_key_id': s3.accessKeyId, 's3.secret_access_key': s3.secretAccessKey, 's3.path_style': true, 's3.prefix': 'killed' }),
    });
    expect(r.status).toBe(202);
    const id = ((await r.json()) as { move: { id: string } }).move.id;
    await until(() => move(srv!.url, id), (m) => m.copied >= 20, 'some progress');
    const exited = new Promise((resolve) => srv!.child.once('exit', resolve));
    srv.child.kill('SIGKILL');
    await exited;

    srv = await startProcess(ADMIN, dataDir);
    const end = await until(() => move(srv!.url, id), (m) => m.state !== 'copying' && m.old_removed !== null, 'the move to finish');
    expect(end).toMatchObject({ state: 'done', failed: 0 });
    expect(end.copied + end.skipped).toBeGreaterThanOrEqual(600);
    for (const [p, b] of entries.filter((_, i) => i % 15 === 0)) {
      const g = await fetch(`${srv.url}/raw/files/${p}`);
      expect(g.status, p).toBe(200);
      expect(sha(Buffer.from(await g.arrayBuffer())), p).toBe(sha(b));
    }
    const root = join(dataDir, 'blobs', 'sha256');
    expect(existsSync(root) ? readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()) : []).toEqual([]);
    expect(srv.stdout() + srv.stderr()).not.toContain('S3RVER');
  }, 240_000);
});

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as jose from 'jose';
import { authenticator } from 'otplib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '@trove/core';
import { NexusDouble } from '@trove/mirror/testing/nexus-double';
import { startProcess, type Running } from './process.js';

const run = promisify(execFile);
const CLIENTS = fileURLToPath(new URL('../../../scripts/clients/', import.meta.url));
const ADMIN = { TR_BOOTSTRAP_ADMIN_USER: 'root', TR_BOOTSTRAP_ADMIN_PASSWORD: 'correct horse battery', TR_DEB_DEBOUNCE: '100ms' };
const adminAuth = 'Basic ' + Buffer.from('root:correct horse battery').toString('base64');
const work = mkdtempSync(join(tmpdir(), 'trove-mirror-flow-'));

let srv: Running | undefined;
let nexus: NexusDouble | undefined;
afterEach(async () => {
  await srv?.stop();
  await nexus?.close();
  srv = nexus = undefined;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * root's full UI session per data directory (it lives in the database, so it outlasts a restart):
 * admin changes need one, since a password over HTTP Basic only reads. Signing in without a second
 * factor gives a setup-only session, and setting up TOTP makes it a full one.
 */
const sessions = new Map<string, Promise<string>>();
async function adminCookie(): Promise<string> {
  const s = srv!;
  if (!sessions.has(s.dataDir)) {
    sessions.set(s.dataDir, (async () => {
      const login = await fetch(`${s.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'root', password: 'correct horse battery' }) });
      const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('tr_session='));
      if (!cookie) throw new Error(`login: ${login.status}`);
      const headers = { Cookie: cookie, 'Content-Type': 'application/json' };
      const begin = await (await fetch(`${s.url}/api/security/totp/begin`, { method: 'POST', headers, body: JSON.stringify({ name: 'test' }) })).json();
      const code = authenticator.generate(begin.secret);
      const confirm = await fetch(`${s.url}/api/security/totp/confirm`, { method: 'POST', headers, body: JSON.stringify({ setup_id: begin.setup_id, code }) });
      if (confirm.status !== 201) throw new Error(`totp confirm: ${confirm.status}`);
      return cookie;
    })());
  }
  return sessions.get(s.dataDir)!;
}

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${srv!.url}/api${path}`, { method, headers: { Cookie: await adminCookie(), 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function waitSync(id: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api('GET', `/mirror/syncs/${id}`);
    if (body.state !== 'running') return body;
    if (Date.now() > until) throw new Error(`sync still running: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sha1 = (b: Buffer | string) => createHash('sha1').update(b).digest('hex');

/** A Maven release as `mvn deploy` leaves it in a Nexus hosted repository: files, side files, metadata. */
function mavenRelease(n: NexusDouble) {
  const dir = 'org/acme/widget/1.0';
  const jar = Buffer.from('PK\u0003\u0004 not really a jar, but Maven only copies it');
  const pom = `<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>org.acme</groupId><artifactId>widget</artifactId><version>1.0</version></project>\n`;
  const meta = `<?xml version="1.0" encoding="UTF-8"?>\n<metadata><groupId>org.acme</groupId><artifactId>widget</artifactId><versioning><latest>1.0</latest><release>1.0</release><versions><version>1.0</version></versions><lastUpdated>20250110120000</lastUpdated></versioning></metadata>\n`;
  const put = (p: string, c: Buffer | string, ct: string) => n.put('releases', p, c, { uploader: 'deployer', uploaderIp: '10.1.2.3', contentType: ct });
  put(`${dir}/widget-1.0.jar`, jar, 'application/java-archive');
  put(`${dir}/widget-1.0.jar.sha1`, sha1(jar), 'text/plain');
  put(`${dir}/widget-1.0.pom`, pom, 'application/xml');
  put(`${dir}/widget-1.0.pom.sha1`, sha1(pom), 'text/plain');
  put('org/acme/widget/maven-metadata.xml', meta, 'application/xml');
  put('org/acme/widget/maven-metadata.xml.sha1', sha1(meta), 'text/plain');
  return { jar };
}

/** A publish session for `repo` through a CI trust policy (the only credential that writes). */
async function publishToken(repo: string): Promise<string> {
  const iss = 'https://ci.example.test';
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
  const jwks = { keys: [{ ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
  expect((await api('POST', '/publish/trusts', { name: `ci-${repo}`, issuer: iss, audience: 'trove', claims: { repository: ['acme/w'] }, jwks: JSON.stringify(jwks), repos: [repo] })).status).toBe(201);
  const jwt = await new jose.SignJWT({ repository: 'acme/w' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(iss).setAudience('trove').setSubject('ci').setIssuedAt().setExpirationTime('5m').sign(privateKey);
  const r = await fetch(`${srv!.url}/api/publish/sessions/oidc`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: jwt, repo }) });
  expect(r.status).toBe(201);
  return ((await r.json()) as { token: string }).token;
}

async function client(script: string, args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run('bash', [join(CLIENTS, script), ...args], { env: { ...process.env, ...env }, timeout: 150_000, maxBuffer: 16 << 20 });
    return { code: 0, stdout: r.stdout.trim(), stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('mirroring a Nexus into the whole server', () => {
  it('imports maven2, apt and raw repositories that mvn and apt-get then read; the fence holds until cut-over', async () => {
    nexus = await NexusDouble.start();
    nexus.addRepo('releases', 'maven2').addRepo('apt-hosted', 'apt', 'hosted', { distribution: 'bookworm' }).addRepo('files', 'raw').addRepo('central', 'maven2', 'proxy');
    const { jar } = mavenRelease(nexus);
    const deb = (await run('bash', [join(CLIENTS, 'make-deb.sh'), 'greet', '1.0-1', 'amd64', work])).stdout.trim();
    nexus.put('apt-hosted', 'pool/g/greet/greet_1.0-1_amd64.deb', readFileSync(deb), { contentType: 'application/x-debian-package' });
    nexus.put('apt-hosted', 'dists/bookworm/Release', 'Origin: Nexus\nSuite: bookworm\n', { contentType: 'text/plain' });
    nexus.put('apt-hosted', 'dists/bookworm/InRelease', '-----BEGIN PGP SIGNED MESSAGE-----\nforeign\n', { contentType: 'text/plain' });
    nexus.put('files', 'tools/setup.sh', '#!/bin/sh\necho hi\n', { uploader: 'ops' });

    srv = await startProcess(ADMIN);
    const { body: source, status } = await api('POST', '/mirror/sources', { name: 'nexus', base_url: nexus.url, username: 'admin', password: 'admin123' });
    expect(status).toBe(201);
    const mapped = await api('PUT', `/mirror/sources/${source.id}/repos`, [
      { source_repo: 'releases', target: 'releases', create: true },
      { source_repo: 'apt-hosted', target: 'apt', create: true },
      { source_repo: 'files', target: 'files', create: true },
    ]);
    expect(mapped.status).toBe(200);
    expect((await api('GET', '/repos/apt')).body).toMatchObject({ format: 'debian', config: { distribution: 'bookworm' }, locked_by: 'nexus/apt-hosted' });
    expect((await api('GET', '/repos/releases')).body).toMatchObject({ format: 'maven', locked_by: 'nexus/releases' });

    const started = await api('POST', `/mirror/sources/${source.id}/sync`);
    expect(started.status).toBe(202);
    const done = await waitSync(started.body.id);
    expect(done.state).toBe('done');
    const byRepo = Object.fromEntries(done.repos.map((r: any) => [r.source_repo, r]));
    expect(byRepo.releases).toMatchObject({ listed: 6, fetched: 6, failed: 0 });
    expect(byRepo['apt-hosted']).toMatchObject({ listed: 3, failed: 0 });
    expect(byRepo.files).toMatchObject({ fetched: 1, failed: 0 });

    // mvn resolves the imported artifact (checksums enforced) with a read token.
    const { body: read } = await api('POST', '/tokens', { name: 'reader' });
    const mvn = await client('maven-resolve.sh', [`${srv.url}/maven/releases`, 'org.acme:widget:1.0', join(work, 'mvn-out'), 'reader', read.token]);
    expect(mvn.code, mvn.stderr).toBe(0);
    expect(readFileSync(mvn.stdout).equals(jar)).toBe(true);

    // apt-get installs the imported package from indexes Trove built and signed (never the source's).
    await expect.poll(async () => (await api('GET', '/repos/apt/status')).body.pending, { timeout: 20_000 }).toBe(0);
    const inRelease = await (await fetch(`${srv.url}/debian/apt/dists/bookworm/InRelease`, { headers: { Authorization: adminAuth } })).text();
    expect(inRelease).not.toContain('foreign');
    const apt = await client('apt-client.sh', [srv.url, 'apt', 'bookworm', 'main', `${srv.url}/keys/debian.asc`, 'greet', 'reader', read.token], { INSTALL: '1', OUT_DIR: mkdtempSync(join(work, 'apt-')) });
    expect(apt.code, apt.stderr).toBe(0);
    expect(apt.stderr).toMatch(/Setting up greet \(1\.0-1\)/);

    const raw = await fetch(`${srv.url}/raw/files/tools/setup.sh`, { headers: { Authorization: adminAuth } });
    expect(await raw.text()).toBe('#!/bin/sh\necho hi\n');
    const assets = await api('GET', '/repos/files/assets');
    expect(assets.body.items[0]).toMatchObject({ path: 'tools/setup.sh', uploader: 'ops' });
    expect(JSON.stringify(assets.body)).not.toContain('10.0.0.7');

    // The fence: a publish session for the mirrored repository still gets 409.
    const token = await publishToken('files');
    const fenced = await fetch(`${srv.url}/raw/files/mine.txt`, { method: 'PUT', body: 'mine', headers: { Authorization: 'Basic ' + Buffer.from(`ci:${token}`).toString('base64') } });
    expect(fenced.status).toBe(409);

    // Cut-over: a final sync, then writes are Trove's; PATCH and sync answer 409.
    nexus.put('files', 'tools/late.sh', 'late');
    const cut = await api('POST', `/mirror/sources/${source.id}/cutover`);
    expect(cut.status).toBe(202);
    expect(await waitSync(cut.body.sync.id)).toMatchObject({ state: 'done', trigger: 'cutover' });
    expect(await (await fetch(`${srv.url}/raw/files/tools/late.sh`, { headers: { Authorization: adminAuth } })).text()).toBe('late');
    expect((await api('GET', '/repos/files')).body.locked_by).toBe('');
    const write = await fetch(`${srv.url}/raw/files/mine.txt`, { method: 'PUT', body: 'mine', headers: { Authorization: 'Basic ' + Buffer.from(`ci:${token}`).toString('base64') } });
    expect(write.status).toBe(201);
    expect((await api('POST', `/mirror/sources/${source.id}/sync`)).status).toBe(409);
    expect((await api('PATCH', `/mirror/sources/${source.id}`, { username: 'x' })).status).toBe(409);

    // The password never reached the log.
    expect(srv.stdout() + srv.stderr()).not.toContain('admin123');
  }, 240_000);

  it('resumes after the server is killed mid-sync, without downloading again what it imported', async () => {
    nexus = await NexusDouble.start();
    nexus.addRepo('files', 'raw');
    for (let i = 0; i < 300; i++) nexus.put('files', `f/${i}.bin`, `file ${i}`);
    nexus.knobs.downloadDelayMs = 15;
    srv = await startProcess({ ...ADMIN, TR_MIRROR_CONCURRENCY: '4' });
    const { body: source } = await api('POST', '/mirror/sources', { name: 'nexus', base_url: nexus.url, username: 'admin', password: 'admin123' });
    await api('PUT', `/mirror/sources/${source.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }]);
    const started = await api('POST', `/mirror/sources/${source.id}/sync`);
    await expect.poll(async () => (await api('GET', `/mirror/syncs/${started.body.id}`)).body.repos[0]?.fetched ?? 0, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(60);

    const dataDir = srv.dataDir;
    srv.child.kill('SIGKILL');
    await new Promise((r) => srv!.child.once('exit', r));
    const beforeRestart = nexus.totalDownloads();
    expect(beforeRestart).toBeLessThan(300);
    // What the killed server had recorded as imported (its database, read while it is down).
    const { sqlite } = openDatabase(join(dataDir, 'trove.db'));
    const recorded = (sqlite.prepare('SELECT count(*) AS n FROM mirror_items').get() as { n: number }).n;
    sqlite.close();
    expect(recorded).toBeGreaterThan(0);
    nexus.knobs.downloadDelayMs = 0;
    srv = await startProcess({ ...ADMIN, TR_MIRROR_CONCURRENCY: '4' }, dataDir);
    const done = await waitSync(started.body.id);
    expect(done).toMatchObject({ state: 'done', resumes: 1, repos: [{ failed: 0 }] });
    // Only what was downloaded but not yet recorded at the kill is fetched again (the downloads in flight,
    // and the files waiting for their commit: up to 256 while their flushes are shared).
    expect(nexus.totalDownloads() - 300).toBeLessThanOrEqual(beforeRestart - recorded);
    const assets = await api('GET', '/repos/files/assets?limit=200');
    const more = await api('GET', `/repos/files/assets?limit=200&after=${assets.body.next}`);
    expect(assets.body.items.length + more.body.items.length).toBe(300);
  }, 120_000);
});

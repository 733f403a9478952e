import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as jose from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { call, GOOD_TOTP, startHarness, type Harness } from './harness.js';

/**
 * docs/publishing.md, executed: each fenced block tagged with a name (```sh device-key) runs
 * in bash exactly as written. The only stand-ins are the browser approval (done through the
 * API the UI calls), the CI runners' environment, and the public issuers' URLs, which point
 * at a local issuer minting real RS256 tokens.
 */
const doc = readFileSync(fileURLToPath(new URL('../../../../docs/publishing.md', import.meta.url)), 'utf8');

function block(name: string): string {
  const m = new RegExp('```\\w+ ' + name + '\\n([\\s\\S]*?)```').exec(doc);
  if (!m) throw new Error(`docs/publishing.md has no block ${name}`);
  return m[1]!;
}

/** The shell inside a YAML block: GitHub's `run: |` body, or GitLab's `script:` items. */
function yamlScript(name: string): string {
  const lines = block(name).split('\n');
  const run = lines.findIndex((l) => /^\s*run: \|$/.test(l));
  if (run >= 0) {
    const indent = /^(\s*)/.exec(lines[run + 1]!)![1]!.length;
    return lines.slice(run + 1).filter((l) => l.trim()).map((l) => l.slice(indent)).join('\n') + '\n';
  }
  return lines.filter((l) => /^\s+- /.test(l) && lines.indexOf(l) > lines.findIndex((x) => /^\s*script:$/.test(x))).map((l) => l.replace(/^\s+- /, '')).join('\n') + '\n';
}

function bash(script: string, env: Record<string, string>, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-euo', 'pipefail', '-c', script], { env: { PATH: process.env.PATH!, HOME: cwd, ...env }, cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

let h: Harness;
let issuerServer: Server | undefined;
let dir: string;
afterEach(async () => {
  await h?.close();
  if (issuerServer) await new Promise((r) => issuerServer!.close(r));
  issuerServer = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function setup() {
  h = await startHarness();
  const repo = await h.ctx.repos.create({ name: 'releases', format: 'raw' });
  h.ctx.permissions.set(repo, 'alice', 'write');
  dir = mkdtempSync(join(tmpdir(), 'trove-docs-'));
  writeFileSync(join(dir, 'app.tar.gz'), 'release bits');
  return { TROVE_URL: h.s.url, TROVE_DIR: join(dir, 'trove'), ADMIN_SESSION: 'root@session' };
}

/** A local CI issuer: GitHub's token request URL and a JWKS, with real RS256 keys. */
async function localIssuer(claims: Record<string, string>) {
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
  const jwks = { keys: [{ ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
  const mint = (aud: string) =>
    new jose.SignJWT({ ...claims }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(origin).setSubject('ci').setAudience(aud).setIssuedAt().setExpirationTime('5m').sign(privateKey);
  issuerServer = createServer(async (req, res) => {
    const url = new URL(req.url!, origin);
    if (url.pathname === '/token' && req.headers.authorization === 'bearer runner-secret') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ value: await mint(url.searchParams.get('audience') ?? '') }));
    } else if (url.pathname.endsWith('jwks') || url.pathname.endsWith('/keys')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => issuerServer!.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  return { origin, mint };
}

describe('docs/publishing.md', () => {
  it('a developer machine enrolls a key, approves it in the UI, opens a session, uploads and closes it', async () => {
    const env = await setup();
    const out = await bash(block('device-key') + block('device-enroll'), env, dir);
    const code = /approve code ([A-Z]{4}-[A-Z]{4})/.exec(out)?.[1];
    expect(out).toContain(`${h.s.url}/#/publishing?code=${code}`);
    // The browser step: the Publishing page approves with a fresh second factor.
    const ap = await call(h, '/api/devices/approve', { auth: 'alice@session', body: { user_code: code, totp_code: GOOD_TOTP } });
    expect(ap.status).toBe(201);
    const script = block('device-key').split('\n').slice(0, 2).join('\n') + '\n' + block('device-poll') + block('device-session') + block('device-upload') + block('device-close') + 'echo; echo "$SESSION"\n';
    const session = JSON.parse((await bash(script, env, dir)).trim().split('\n').pop()!);
    const asset = h.ctx.assets.get(h.ctx.repos.byName('releases')!, 'app/1.0.0/app.tar.gz');
    expect(asset).toMatchObject({ uploader: 'alice', size: 12 });
    const log = await call(h, '/api/publish/log', { auth: 'root' });
    expect(log.body.items[0]).toMatchObject({ id: session.id, proof: 'device', state: 'closed', closed_reason: 'closed' });
  });

  it('a GitHub Actions job gets a session from its identity token and uploads', async () => {
    const env = await setup();
    const gh = await localIssuer({ repository: 'acme/widgets', ref: 'refs/heads/main', workflow: 'release', sha: 'f00d' });
    await bash(block('github-trust').replaceAll('https://token.actions.githubusercontent.com', gh.origin), env, dir);
    await bash(yamlScript('github-workflow'), {
      TROVE_URL: h.s.url,
      ACTIONS_ID_TOKEN_REQUEST_URL: `${gh.origin}/token?api-version=2.0`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'runner-secret',
      GITHUB_SHA: 'f00d',
    }, dir);
    expect(h.ctx.assets.get(h.ctx.repos.byName('releases')!, 'app/f00d/app.tar.gz')?.uploader).toBe('ci:acme/widgets');
    const log = await call(h, '/api/publish/log', { auth: 'root' });
    expect(log.body.items[0]).toMatchObject({ proof: 'oidc', trust: { name: 'acme-widgets' }, claims: { repository: 'acme/widgets', workflow: 'release', ref: 'refs/heads/main', sha: 'f00d' } });
  });

  it('a GitLab CI job gets a session from its id_token and uploads', async () => {
    const env = await setup();
    const gl = await localIssuer({ project_path: 'acme/widgets', ref_protected: 'true', ref: 'main', sha: 'beef' });
    await bash(block('gitlab-trust').replaceAll('https://gitlab.com', gl.origin), env, dir);
    await bash(yamlScript('gitlab-job'), { TROVE_URL: h.s.url, TROVE_ID_TOKEN: await gl.mint('trove'), CI_COMMIT_SHA: 'beef' }, dir);
    expect(h.ctx.assets.get(h.ctx.repos.byName('releases')!, 'app/beef/app.tar.gz')?.uploader).toBe('ci:acme/widgets');
  });
});

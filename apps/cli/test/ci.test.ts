import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, publisher, removeTempDirs, startIssuer, startServer, tempDir, trove, type Server } from './harness.js';

/** `--oidc`: a CI job proves itself with its identity token, matched by an admin's trust policy. */
let srv: Server;
let issuer: Awaited<ReturnType<typeof startIssuer>>;

beforeAll(async () => {
  [srv, issuer] = await Promise.all([startServer(), startIssuer()]);
  await publisher(srv.url, [{ name: 'files', format: 'raw' }]);
  const policy = {
    name: 'widgets',
    issuer: issuer.issuer,
    audience: srv.url, // the CLI's default audience: the server's base URL
    claims: { repository: ['acme/widgets'], ref: ['refs/heads/main'] },
    jwks: issuer.jwks_uri,
    repos: ['files'],
  };
  const t = await api(srv.url, '/api/publish/trusts', { body: policy });
  if (t.status !== 201) throw new Error(`trust: ${t.status} ${JSON.stringify(t.body)}`);
});
afterAll(async () => {
  issuer?.stop();
  await srv?.stop();
  removeTempDirs();
});

const token = async (audience: string, claims: Record<string, string> = {}) =>
  ((await (await fetch(`${issuer.issuer}/token`, { method: 'POST', body: JSON.stringify({ audience, claims }) })).json()) as { value: string }).value;

describe('trove --oidc', () => {
  it('opens a session with $TROVE_ID_TOKEN (GitLab id_tokens) and uploads with it', async () => {
    const home = tempDir();
    const dir = tempDir();
    writeFileSync(join(dir, 'app.tgz'), 'ci bytes');
    const env = { TROVE_URL: srv.url, TROVE_ID_TOKEN: await token(srv.url) };
    const r = await trove(['upload', 'files', join(dir, 'app.tgz'), 'ci/app.tgz', '--oidc'], { configDir: home, env }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(await (await fetch(`${srv.url}/raw/files/ci/app.tgz`)).text()).toBe('ci bytes');
    const log = await api(srv.url, '/api/publish/log');
    expect(log.body.items[0]).toMatchObject({ proof: 'oidc', actor: 'ci:acme/widgets', trust: { name: 'widgets' }, state: 'closed' });
  });

  it("asks GitHub Actions' token URL for the server's URL as audience (or --audience) and exchanges the token", async () => {
    const home = tempDir();
    const env = { TROVE_URL: srv.url, ACTIONS_ID_TOKEN_REQUEST_URL: `${issuer.token_url}?api-version=2.0`, ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'runner-secret' };
    let r = await trove(['session', 'files', '--oidc', '--json'], { configDir: home, env }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ repo: 'files', format: 'raw' });
    // Another audience than the policy's: refused in words, exit 1.
    r = await trove(['session', 'files', '--oidc', '--audience', 'someone-else'], { configDir: home, env }).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^trove: ${srv.url.replace(/[.]/g, '\\.')} refused the CI identity token: `));
  });

  it('is refused for a repository the policy does not list and for claims it does not allow', async () => {
    const home = tempDir();
    await api(srv.url, '/api/repos', { body: { name: 'other', format: 'raw' } });
    let r = await trove(['session', 'other', '--oidc'], { configDir: home, env: { TROVE_URL: srv.url, TROVE_ID_TOKEN: await token(srv.url) } }).done;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    r = await trove(['session', 'files', '--oidc'], { configDir: home, env: { TROVE_URL: srv.url, TROVE_ID_TOKEN: await token(srv.url, { ref: 'refs/heads/feature' }) } }).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('trove: no publish session for files: CI identity not allowed: no trust policy lets it publish to this repository\n');
    r = await trove(['session', 'files', '--oidc'], { configDir: home, env: { TROVE_URL: srv.url } }).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^trove: --oidc needs a CI identity token: set TROVE_ID_TOKEN/);
  });
});

describe('trove login (expiry) and URL resolution', () => {
  it('exits non-zero with the reason when the code expires before approval', async () => {
    const clocked = await startServer({ clock: true });
    try {
      const home = tempDir();
      const run = trove(['login', clocked.url, '--no-browser'], { configDir: home });
      await run.waitForStderr(/confirm the code/);
      clocked.shiftClock(601_000); // the server's clock: the 600-second code is now expired
      const r = await run.done;
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n').pop()).toMatch(/^trove: the code [A-Z]{4}-[A-Z]{4} expired before it was approved; run `trove login http:\/\/127\.0\.0\.1:\d+` again$/);
      expect(r.stdout).toBe('');
      const st = await trove(['status'], { configDir: home }).done;
      expect(st.stderr).toMatch(/^trove: no server/);
    } finally {
      await clocked.stop();
    }
  });

  it('uses --url, then $TROVE_URL, then the only server logged in to, and lists them when there are several', async () => {
    const home = tempDir();
    const fake = (url: string, id: string) => {
      const dir = join(home, 'servers', url.replace(/^(https?):\/\//, '$1_').replace(/[^A-Za-z0-9.-]+/g, '_'));
      return { dir, json: JSON.stringify({ url, device_id: id, name: 'n', kind: 'gradle', public_key: 'x', expires_at: null, enrolled_at: '' }) };
    };
    const { mkdirSync } = await import('node:fs');
    for (const [url, id] of [['https://a.example', 'da'], ['http://127.0.0.1:9', 'db']] as const) {
      const f = fake(url, id);
      mkdirSync(f.dir, { recursive: true });
      writeFileSync(join(f.dir, 'device.json'), f.json);
      writeFileSync(join(f.dir, 'device.key'), 'unused');
    }
    let r = await trove(['session', 'files'], { configDir: home }).done;
    expect([r.code, r.stderr]).toEqual([1, 'trove: logged in to several servers (http://127.0.0.1:9, https://a.example); choose one with --url or TROVE_URL\n']);
    r = await trove(['status', '--url', srv.url], { configDir: home, env: { TROVE_URL: 'https://a.example' } }).done;
    expect(r.stderr).toBe(`trove: not logged in to ${srv.url}: run \`trove login ${srv.url}\`\n`);
    r = await trove(['status', '--json'], { configDir: home, env: { TROVE_URL: 'http://127.0.0.1:9/' } }).done;
    expect(JSON.parse(r.stdout)).toMatchObject({ server: 'http://127.0.0.1:9', device_id: 'db', state: 'unknown' });
  });
});

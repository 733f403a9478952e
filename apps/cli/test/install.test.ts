import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, publisher, REPO_ROOT, removeTempDirs, rootSession, start, startIssuer, startServer, tempDir, type Server } from './harness.js';

/**
 * The package as users get it: `npm install -g {base_url}/downloads/trove-cli.tgz` from a
 * running server, then the installed `trove`; and docs/publishing.md's CI examples, run as
 * written with that install, against the server and a local CI identity-token issuer.
 */
let srv: Server;
let issuer: Awaited<ReturnType<typeof startIssuer>>;

beforeAll(async () => {
  [srv, issuer] = await Promise.all([startServer(), startIssuer()]);
  await publisher(srv.url, [{ name: 'releases', format: 'raw' }]);
});
afterAll(async () => {
  issuer?.stop();
  await srv?.stop();
  removeTempDirs();
});

/** npm with a private prefix, cache and HOME: nothing of this machine's npm set-up is read or written. */
function npmEnv(prefix: string, home: string): Record<string, string> {
  return {
    HOME: home,
    PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
    npm_config_prefix: prefix,
    npm_config_cache: join(home, '.npm'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

const doc = readFileSync(join(REPO_ROOT, 'docs/publishing.md'), 'utf8');
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
  const script = lines.findIndex((l) => /^\s*script:$/.test(l));
  return lines.slice(script + 1).filter((l) => /^\s+- /.test(l)).map((l) => l.replace(/^\s+- /, '')).join('\n') + '\n';
}
function bash(script: string, env: Record<string, string>, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-euo', 'pipefail', '-c', script], { env, cwd, timeout: 240_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

describe('GET /downloads/trove-cli.tgz', () => {
  it('serves the package without credentials, and npm install -g --prefix installs a trove that runs', async () => {
    const head = await fetch(`${srv.url}/downloads/trove-cli.tgz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/gzip');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    const prefix = tempDir('trove-cli-prefix-');
    const home = tempDir();
    const env = npmEnv(prefix, home);
    const npm = await start('npm', ['install', '-g', '--prefix', prefix, `${srv.url}/downloads/trove-cli.tgz`], { env }).done;
    expect(npm.code, npm.stderr).toBe(0);
    // One package, no dependencies.
    expect(readdirSync(join(prefix, 'lib', 'node_modules'))).toEqual(['trove-cli']);
    expect(existsSync(join(prefix, 'lib', 'node_modules', 'trove-cli', 'node_modules'))).toBe(false);
    const help = await start(join(prefix, 'bin', 'trove'), ['--help'], { env }).done;
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^trove: publish to a Trove artifact repository/);
    for (const cmd of ['login', 'session', 'exec', 'upload', 'status']) {
      const r = await start(join(prefix, 'bin', 'trove'), [cmd, '--help'], { env }).done;
      expect([r.code, r.stdout.split('\n')[0]]).toEqual([0, expect.stringMatching(new RegExp(`^Usage: trove ${cmd}`))]);
    }
    const st = await start(join(prefix, 'bin', 'trove'), ['status'], { env: { ...env, TROVE_CONFIG_DIR: home } }).done;
    expect([st.code, st.stderr]).toEqual([1, 'trove: no server: pass --url URL, set TROVE_URL, or run `trove login URL` first\n']);
  });
});

describe('docs/publishing.md, with the CLI', () => {
  it('a GitHub Actions job installs trove from the server and uploads with its identity token', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'app.tar.gz'), 'github bytes');
    const admin = { PATH: process.env.PATH!, TROVE_URL: srv.url, ADMIN_USER: 'root', ADMIN_PASSWORD: 'correct horse battery', ADMIN_SESSION: (await rootSession(srv.url)).slice('tr_session='.length) };
    await bash(block('github-trust').replaceAll('https://token.actions.githubusercontent.com', issuer.issuer), admin, dir);
    const env = {
      ...npmEnv(tempDir('trove-cli-prefix-'), tempDir()),
      TROVE_URL: srv.url,
      ACTIONS_ID_TOKEN_REQUEST_URL: `${issuer.token_url}?api-version=2.0`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'runner-secret',
      GITHUB_SHA: 'f00d',
    };
    await bash(yamlScript('cli-github-workflow'), env, dir);
    expect(await (await fetch(`${srv.url}/raw/releases/app/f00d/app.tar.gz`)).text()).toBe('github bytes');
    const log = await api(srv.url, '/api/publish/log');
    expect(log.body.items[0]).toMatchObject({ proof: 'oidc', state: 'closed', trust: { name: 'acme-widgets' }, claims: { repository: 'acme/widgets', ref: 'refs/heads/main' } });
  });

  it('a GitLab CI job installs trove from the server and uploads with its id_token', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'app.tar.gz'), 'gitlab bytes');
    const admin = { PATH: process.env.PATH!, TROVE_URL: srv.url, ADMIN_USER: 'root', ADMIN_PASSWORD: 'correct horse battery', ADMIN_SESSION: (await rootSession(srv.url)).slice('tr_session='.length) };
    await bash(block('gitlab-trust').replaceAll('https://gitlab.com/oauth/discovery/keys', issuer.jwks_uri).replaceAll('https://gitlab.com', issuer.issuer), admin, dir);
    // (The local issuer also stands in for GitHub above: a repository claim of its own keeps that policy out.)
    const idToken = (await (await fetch(`${issuer.issuer}/token`, { method: 'POST', body: JSON.stringify({ audience: 'trove', claims: { project_path: 'acme/widgets', ref_protected: 'true', repository: 'not-on-github' } }) })).json()) as { value: string };
    const env = { ...npmEnv(tempDir('trove-cli-prefix-'), tempDir()), TROVE_URL: srv.url, TROVE_ID_TOKEN: idToken.value, CI_COMMIT_SHA: 'beef' };
    await bash(yamlScript('cli-gitlab-job'), env, dir);
    expect(await (await fetch(`${srv.url}/raw/releases/app/beef/app.tar.gz`)).text()).toBe('gitlab bytes');
    const log = await api(srv.url, '/api/publish/log');
    expect(log.body.items[0]).toMatchObject({ proof: 'oidc', state: 'closed', trust: { name: 'acme-widgets-gitlab' } });
  });
});

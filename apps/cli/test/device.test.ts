import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, CLI, CLIENTS, publisher, removeTempDirs, start, startServer, tempDir, totpAt, trove, waitForSigningKey, type Server } from './harness.js';

/**
 * A developer machine, through the built CLI and the built server: enroll (approved with a
 * second factor), then sessions, exec, uploads and status with the stored key. The tests
 * run in order and share the device enrolled by the first.
 */
let srv: Server;
let alice: { cookie: string; secret: string };
let home: string;
const basic = (token: string) => 'Basic ' + Buffer.from(`x:${token}`).toString('base64');
const cli = (args: string[], env: Record<string, string> = {}, cwd?: string) => trove(args, { configDir: home, env, cwd }).done;

beforeAll(async () => {
  srv = await startServer();
  alice = await publisher(srv.url, [
    { name: 'files', format: 'raw' },
    { name: 'apt', format: 'debian' },
    { name: 'libs', format: 'maven' },
  ]);
  home = tempDir('trove-cli-home-');
  await waitForSigningKey(srv.url);
});
afterAll(async () => {
  await srv?.stop();
  removeTempDirs();
});

describe('trove login', () => {
  it('enrolls a key, waits through a wrong second factor, and stores the device once approved with TOTP', async () => {
    const run = trove(['login', srv.url + '/', '--no-browser', '--name', 'build box', '--kind', 'maven'], { configDir: home });
    const [line, code] = await run.waitForStderr(/confirm the code ([A-Z]{4}-[A-Z]{4})/);
    expect(line).toBeTruthy();
    expect(run.stderr()).toContain(`open ${srv.url}/#/publishing?code=${code}`);
    expect(run.stderr().trim().split('\n')).toHaveLength(1);
    // The web UI shows the pending device; a wrong code is refused and the CLI keeps waiting.
    const seen = await api(srv.url, `/api/devices/enroll?user_code=${code}`, { auth: null, cookie: alice.cookie });
    expect(seen.body).toMatchObject({ name: 'build box', kind: 'maven', state: 'pending' });
    const wrong = await api(srv.url, '/api/devices/approve', { body: { user_code: code, totp_code: '000000' }, auth: null, cookie: alice.cookie });
    expect(wrong.status).toBe(401);
    await new Promise((r) => setTimeout(r, 6_000)); // at least one authorization_pending poll
    expect(run.child.exitCode).toBeNull();
    const ap = await api(srv.url, '/api/devices/approve', { body: { user_code: code, totp_code: totpAt(alice.secret, 0) }, auth: null, cookie: alice.cookie });
    expect(ap.status).toBe(201);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Logged in to ${srv.url} as device "build box" (${ap.body.id})`);

    // One directory per server URL (readable, plus a hash of the exact URL), 0700; key files 0600; the private
    // key is never sent (the server holds the public half).
    const dir = join(home, 'servers', `http_127.0.0.1_${new URL(srv.url).port}_${createHash('sha256').update(srv.url).digest('hex').slice(0, 16)}`);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of ['device.key', 'device.json']) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(join(dir, 'device.json'), 'utf8'));
    expect(stored).toMatchObject({ url: srv.url, device_id: ap.body.id, name: 'build box', kind: 'maven', expires_at: ap.body.expires_at });
    expect(readFileSync(join(dir, 'device.key'), 'utf8')).toContain('BEGIN PRIVATE KEY');
    expect(stored.public_key).toBe(seen.body.public_key);
  });
});

describe('trove session', () => {
  it('prints only the token; the token writes to its repository', async () => {
    const r = await cli(['session', 'files']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^trs_[0-9a-f]+_[A-Za-z0-9_-]+\n$/);
    const put = await fetch(`${srv.url}/raw/files/from-session.txt`, { method: 'PUT', body: 'hello', headers: { authorization: basic(r.stdout.trim()) } });
    expect(put.status).toBe(201);
    const json = await cli(['session', 'files', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ repo: 'files', format: 'raw', token: expect.stringMatching(/^trs_/) });
  });

  it('fails with one line on stderr for an unknown repository, a bad URL or a missing argument', async () => {
    let r = await cli(['session', 'nope']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^trove: .*nope.*\n$/);
    r = await cli(['session', 'files', '--url', 'ftp://x']);
    expect([r.code, r.stderr]).toEqual([2, 'trove: not an http(s) URL: ftp://x\n']);
    r = await cli(['session']);
    expect([r.code, r.stderr]).toEqual([2, 'trove: REPO is required (see: trove session --help)\n']);
    r = await cli(['session', 'files', '--url', 'http://127.0.0.1:9']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^trove: not logged in to http:\/\/127\.0\.0\.1:9/);
  });
});

describe('trove exec', () => {
  it('runs the command with TROVE_URL, TROVE_REPO and TROVE_PUBLISH_TOKEN, passes its exit status, and closes the session', async () => {
    const out = join(tempDir(), 'env');
    const r = await cli(['exec', '--repo', 'files', '--', 'sh', '-c', `printf '%s\\n' "$TROVE_URL" "$TROVE_REPO" "$TROVE_PUBLISH_TOKEN" > ${out}; exit 7`]);
    expect(r.code, r.stderr).toBe(7);
    const [url, repo, token] = readFileSync(out, 'utf8').trim().split('\n');
    expect([url, repo]).toEqual([srv.url, 'files']);
    const put = await fetch(`${srv.url}/raw/files/after-exec.txt`, { method: 'PUT', body: 'late', headers: { authorization: basic(token!) } });
    expect(put.status).toBe(401); // closed, not merely expiring
  });

  it('passes a signal on to the command and still closes the session', async () => {
    const dir = tempDir();
    const run = trove(['exec', '--repo', 'files', '--', 'sh', '-c', `echo "$TROVE_PUBLISH_TOKEN" > ${dir}/token; trap 'echo got-term > ${dir}/trap; exit 143' TERM; echo ready >&2; while :; do sleep 0.1; done`], { configDir: home });
    await run.waitForStderr(/ready/);
    run.child.kill('SIGTERM');
    const r = await run.done;
    expect(readFileSync(join(dir, 'trap'), 'utf8')).toBe('got-term\n');
    expect(r.code).toBe(143);
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    expect((await fetch(`${srv.url}/raw/files/x`, { method: 'PUT', body: 'x', headers: { authorization: basic(token) } })).status).toBe(401);
    const log = await api(srv.url, '/api/publish/log');
    const id = /^trs_([0-9a-f]+)_/.exec(token)![1];
    expect(log.body.items.find((s: { id: string }) => s.id === id)).toMatchObject({ state: 'closed', closed_reason: 'closed' });
  });

  it('says so when the command does not exist (127) and needs the command after --', async () => {
    let r = await cli(['exec', '--repo', 'files', '--', 'no-such-command-xyz']);
    expect([r.code, r.stderr]).toEqual([127, 'trove: no-such-command-xyz: command not found\n']);
    r = await cli(['exec', '--repo', 'files']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^trove: the command to run is missing after --/);
  });
});

describe('trove upload', () => {
  it('streams a raw file to PATH (default: its name) and the bytes read back', async () => {
    const dir = tempDir();
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    writeFileSync(join(dir, 'app.tar.gz'), bytes);
    let r = await cli(['upload', 'files', join(dir, 'app.tar.gz'), 'app/1.0.0/app.tar.gz']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ path: 'app/1.0.0/app.tar.gz', size: bytes.length });
    expect(Buffer.from(await (await fetch(`${srv.url}/raw/files/app/1.0.0/app.tar.gz`)).arrayBuffer()).equals(bytes)).toBe(true);
    r = await cli(['upload', 'files', join(dir, 'app.tar.gz')]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).path).toBe('app.tar.gz');
  });

  it('draws a progress bar when stderr is a terminal (and none otherwise)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'big.bin'), Buffer.alloc(8 * 1024 * 1024, 1));
    // util-linux `script` gives the CLI a pseudo-terminal; its output is what the terminal showed.
    const tty = await start('script', ['-qfec', `node ${CLI} upload files ${join(dir, 'big.bin')} tty/big.bin`, '/dev/null'], { env: { HOME: home, TROVE_CONFIG_DIR: home } }).done;
    expect(tty.code, tty.stdout).toBe(0);
    expect(tty.stdout).toMatch(/\rbig\.bin \[#+\] 100%  8\.0\/8\.0 MiB/);
    expect(tty.stdout).toContain('"path":"tty/big.bin"');
    const piped = await cli(['upload', 'files', join(dir, 'big.bin'), 'tty/big.bin']);
    expect([piped.code, piped.stderr]).toEqual([0, '']);
  });

  it('explains a 409 (different bytes, overwrite deny) and a 413 (over max_upload_bytes) in words', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'other.tar.gz'), 'different bytes');
    let r = await cli(['upload', 'files', join(dir, 'other.tar.gz'), 'app/1.0.0/app.tar.gz']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^trove: conflict: app\/1\.0\.0\/app\.tar\.gz already exists with different contents and files does not allow overwrites/);
    expect(await api(srv.url, '/api/settings', { method: 'PATCH', body: { max_upload_bytes: 1000 } })).toMatchObject({ status: 200 });
    try {
      writeFileSync(join(dir, 'big.bin'), Buffer.alloc(5 * 1024 * 1024));
      r = await cli(['upload', 'files', join(dir, 'big.bin')]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^trove: too large: the file is 5242880 bytes, more than the server accepts \(max_upload_bytes\)/);
    } finally {
      await api(srv.url, '/api/settings', { method: 'PATCH', body: { max_upload_bytes: null } });
    }
    r = await cli(['upload', 'files', join(dir, 'other.tar.gz'), 'app/../../other/x']);
    expect([r.code, r.stderr]).toEqual([2, 'trove: PATH must not contain . or .. segments: app/../../other/x (see: trove upload --help)\n']);
    r = await cli(['upload', 'files', join(dir, 'missing.bin')]);
    expect([r.code, r.stderr]).toEqual([1, `trove: cannot read ${join(dir, 'missing.bin')}: no such file\n`]);
  });

  it('uploads a .deb to a Debian distribution and component, and apt serves the same bytes', async () => {
    const dir = tempDir();
    const made = await start('bash', [join(CLIENTS, 'make-deb.sh'), 'hello', '1.0', 'amd64', dir]).done;
    expect(made.code, made.stderr).toBe(0);
    const deb = made.stdout.trim();
    let r = await cli(['upload', 'apt', deb]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/apt is a Debian repository: --dist DIST and --component COMP are required/);
    r = await cli(['upload', 'apt', deb, '--dist', 'stable', '--component', 'main']);
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer).toMatchObject({ package: 'hello', version: '1.0', architecture: 'amd64' });
    const served = Buffer.from(await (await fetch(`${srv.url}/debian/apt/${answer.filename}`)).arrayBuffer());
    expect(served.equals(readFileSync(deb))).toBe(true);
    // The repository's usage snippets show this very command and where to get the CLI.
    const usage = (await api(srv.url, '/api/repos/apt/usage')).body.snippets.map((x: { code: string }) => x.code).join('\n');
    expect(usage).toContain(`npm install -g ${srv.url}/downloads/trove-cli.tgz`);
    expect(usage).toContain('trove upload apt ./hello_1.0_amd64.deb --dist stable --component main');
  });

  it('sends Maven repositories to Maven or Gradle', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.jar'), 'x');
    const r = await cli(['upload', 'libs', join(dir, 'a.jar')]);
    expect([r.code, r.stderr]).toEqual([1, 'trove: libs is a Maven repository: publish with Maven or Gradle, e.g. trove exec --repo libs -- mvn deploy\n']);
  });
});

describe('trove status', () => {
  it('shows the server, the device and its expiry; --json for scripts; a revoked device says so', async () => {
    let r = await cli(['status', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    const listed = (await api(srv.url, '/api/devices')).body.items[0];
    expect(s).toEqual({ server: srv.url, device_id: listed.id, name: 'build box', kind: 'maven', expires_at: listed.expires_at, state: 'active' });
    r = await cli(['status']);
    expect(r.stdout).toContain(`server:      ${srv.url}\ndevice:      build box (${listed.id})`);

    expect((await api(srv.url, `/api/devices/${listed.id}`, { method: 'DELETE' })).status).toBe(204);
    r = await cli(['status', '--json']);
    expect(JSON.parse(r.stdout).state).toBe('revoked or expired');
    r = await cli(['session', 'files']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`trove: ${srv.url} no longer accepts this device (revoked or expired): run \`trove login ${srv.url}\` again\n`);
  });
});

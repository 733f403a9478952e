import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { authenticator } from 'otplib';

const here = fileURLToPath(new URL('.', import.meta.url));
export const REPO_ROOT = resolve(here, '../../..');
/** The BUILT CLI and server: tests run what `pnpm build` makes, as child processes. */
export const CLI = resolve(here, '../dist/trove.mjs');
export const CLI_TARBALL = resolve(here, '../dist/trove-cli.tgz');
const SERVER_MAIN = resolve(REPO_ROOT, 'apps/server/dist/main.js');
export const CLIENTS = resolve(REPO_ROOT, 'scripts/clients');

export const ROOT = { user: 'root', password: 'correct horse battery' };
export const rootAuth = 'Basic ' + Buffer.from(`${ROOT.user}:${ROOT.password}`).toString('base64');

const made: string[] = [];
export function tempDir(prefix = 'trove-cli-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface Server {
  url: string;
  child: ChildProcess;
  log(): string;
  /** Moves the server's clock forward (only for servers started with `clock: true`). */
  shiftClock(ms: number): void;
  stop(): Promise<void>;
}

/**
 * Starts the built server (`apps/server/dist/main.js`) on a free port. With `clock`, a
 * preloaded module lets the test move the server's `Date` forward (for the 600-second
 * enrollment expiry), the way the package tests use fake timers.
 */
export async function startServer(opts: { env?: Record<string, string>; clock?: boolean } = {}): Promise<Server> {
  const dataDir = tempDir('trove-cli-srv-');
  const clockFile = join(dataDir, 'clock-offset');
  const args = [SERVER_MAIN];
  if (opts.clock) {
    writeFileSync(clockFile, '0');
    const shim = join(dataDir, 'clock.mjs');
    writeFileSync(
      shim,
      `import { readFileSync } from 'node:fs';
const real = Date.now.bind(Date);
const RealDate = Date;
const offset = () => Number(readFileSync(${JSON.stringify(clockFile)}, 'utf8')) || 0;
globalThis.Date = class extends RealDate {
  constructor(...a) { if (a.length === 0) super(real() + offset()); else super(...a); }
  static now() { return real() + offset(); }
};
`,
    );
    args.unshift('--import', pathToFileURL(shim).href);
  }
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env.PATH!,
      TR_DATA_DIR: dataDir,
      TR_LISTEN: '127.0.0.1:0',
      TR_BOOTSTRAP_ADMIN_USER: ROOT.user,
      TR_BOOTSTRAP_ADMIN_PASSWORD: ROOT.password,
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const port = await new Promise<number>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not start: ${out}\n${err}`)), 30_000);
    child.stdout!.on('data', () => {
      const m = /"port":(\d+)[^\n]*"msg":"trove listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${code}: ${err}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    log: () => out + err,
    shiftClock: (ms) => writeFileSync(clockFile, String(ms)),
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * root's full UI session per server: admin changes need one, since a password over HTTP Basic
 * only reads. Signing in without a second factor gives a setup-only session; setting up TOTP
 * makes it a full one.
 */
const rootSessions = new Map<string, Promise<string>>();
export function rootSession(base: string): Promise<string> {
  if (!rootSessions.has(base)) {
    rootSessions.set(base, (async () => {
      const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ROOT.user, password: ROOT.password }) });
      const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('tr_session='));
      if (!cookie) throw new Error(`root login: ${login.status}`);
      const headers = { 'content-type': 'application/json', cookie };
      const begin = (await (await fetch(`${base}/api/security/totp/begin`, { method: 'POST', headers, body: JSON.stringify({ name: 'root' }) })).json()) as { setup_id: string; secret: string };
      const confirm = await fetch(`${base}/api/security/totp/confirm`, { method: 'POST', headers, body: JSON.stringify({ setup_id: begin.setup_id, code: totpAt(begin.secret, -1) }) });
      if (confirm.status !== 201) throw new Error(`root totp: ${confirm.status}`);
      return cookie;
    })());
  }
  return rootSessions.get(base)!;
}

/** A JSON API call (as root's UI session by default; `auth` sends that Authorization header instead, `null` none). */
export async function api(base: string, path: string, init: { method?: string; body?: unknown; auth?: string | null; cookie?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.auth) headers.authorization = init.auth;
  else if (init.auth === undefined && !init.cookie) headers.cookie = await rootSession(base);
  if (init.cookie) headers.cookie = init.cookie;
  const r = await fetch(base + path, { method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'), headers, body: init.body !== undefined ? JSON.stringify(init.body) : undefined });
  const text = await r.text();
  let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: r.status, body, headers: r.headers };
}

/** TOTP codes at distinct 30-second steps around now; the server takes each once. */
export const totpAt = (secret: string, step: number) => authenticator.clone({ epoch: Date.now() + step * 30_000 }).generate(secret);

/**
 * A local publisher as a person sets one up: the admin creates the user and repositories;
 * the user signs in and adds a TOTP authenticator (a second factor is needed to publish).
 * Returns the signed-in session cookie and the TOTP secret, for approvals in the web UI.
 */
export async function publisher(url: string, repos: { name: string; format: string; config?: unknown }[], username = 'alice') {
  expect201(await api(url, '/api/users', { body: { username, password: `${username}-password-1` } }), 'create user');
  for (const r of repos) {
    expect201(await api(url, '/api/repos', { body: { name: r.name, format: r.format, anonymous_read: true, ...(r.config ? { config: r.config } : {}) } }), `create repo ${r.name}`);
    const p = await api(url, `/api/repos/${r.name}/permissions/${username}`, { method: 'PUT', body: { level: 'write' } });
    if (p.status !== 200) throw new Error(`permission: ${p.status} ${JSON.stringify(p.body)}`);
  }
  const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password: `${username}-password-1` }) });
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const begin = await api(url, '/api/security/totp/begin', { body: { name: 'phone' }, auth: null, cookie });
  const secret = begin.body.secret as string;
  expect201(await api(url, '/api/security/totp/confirm', { body: { setup_id: begin.body.setup_id, code: totpAt(secret, -1) }, auth: null, cookie }), 'confirm totp');
  return { cookie, secret };
}

function expect201(r: { status: number; body: unknown }, what: string) {
  if (r.status !== 201) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stderr matches. */
  waitForStderr(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  done: Promise<Run>;
}

/** Spawns a program asynchronously; `env` is the whole environment beside PATH. */
export function start(cmd: string, args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Running {
  const child = spawn(cmd, args, { env: { PATH: process.env.PATH!, ...opts.env }, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 180_000);
  const done = new Promise<Run>((ok) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      ok({ code, signal, stdout, stderr });
    }),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    done,
    waitForStderr: (re, timeoutMs = 120_000) =>
      new Promise((ok, fail) => {
        const t = setTimeout(() => fail(new Error(`stderr never matched ${re}: ${stderr} (stdout: ${stdout}, exit: ${child.exitCode})`)), timeoutMs);
        const check = () => {
          const m = re.exec(stderr);
          if (m) {
            clearTimeout(t);
            child.stderr!.off('data', check);
            ok(m);
          }
        };
        child.stderr!.on('data', check);
        check();
      }),
  };
}

/** Runs the built CLI: `trove ARGS...` with its own config directory and nothing else of ours. */
export function trove(args: string[], opts: { configDir: string; env?: Record<string, string>; cwd?: string; timeoutMs?: number }): Running {
  return start(process.execPath, [CLI, ...args], { ...opts, env: { HOME: opts.configDir, TROVE_CONFIG_DIR: opts.configDir, ...opts.env } });
}

/** Starts the local CI identity-token issuer (scripts/clients/ci-token-issuer.mjs; jose from the workspace root). */
export async function startIssuer(): Promise<{ issuer: string; jwks_uri: string; token_url: string; stop(): void }> {
  const child = spawn(process.execPath, [join(CLIENTS, 'ci-token-issuer.mjs'), '--port', '0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) ok(out.split('\n')[0]!);
    });
    child.once('exit', (code) => fail(new Error(`issuer exited ${code}`)));
  });
  return { ...(JSON.parse(line) as { issuer: string; jwks_uri: string; token_url: string }), stop: () => child.kill('SIGTERM') };
}

/**
 * `trove login URL --no-browser` as a person runs it: the CLI prints the page and the code;
 * the person approves it in the web UI with a fresh TOTP code (here through the API the UI calls).
 */
export async function loginDevice(url: string, who: { cookie: string; secret: string }, configDir: string, opts: { step?: number; name?: string } = {}) {
  const run = trove(['login', url, '--no-browser', '--name', opts.name ?? 'build box', '--kind', 'maven'], { configDir });
  const [, code] = await run.waitForStderr(/confirm the code ([A-Z]{4}-[A-Z]{4})/);
  const ap = await api(url, '/api/devices/approve', { body: { user_code: code, totp_code: totpAt(who.secret, opts.step ?? 0) }, auth: null, cookie: who.cookie });
  if (ap.status !== 201) throw new Error(`approve: ${ap.status} ${JSON.stringify(ap.body)}`);
  const r = await run.done;
  if (r.code !== 0) throw new Error(`login failed: ${r.stderr}`);
  return { run: r, device: ap.body as { id: string; name: string; expires_at: string } };
}

/** The Debian signing key is generated in the background at first start (seconds of CPU); wait for it. */
export async function waitForSigningKey(url: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if ((await fetch(`${url}/keys/debian.asc`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('no Debian signing key');
}

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readdirSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { get, freePort, waitFor } from './net.mjs';
import { memoryOf, run, stopChild, track } from './proc.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** BENCH_TROVE_MAIN points at another build (e.g. a patched copy, to measure a proposed fix); it is never rebuilt. */
export const MAIN = process.env.BENCH_TROVE_MAIN ?? join(ROOT, 'apps/server/dist/main.js');
export const ADMIN = { user: 'benchadmin', password: 'bench-admin-password-1' };

/** Newest mtime of any .ts/.tsx under the given source dirs. */
function newestSource(dirs) {
  let newest = 0;
  const walk = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name)) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  dirs.forEach(walk);
  return newest;
}

/**
 * Builds the workspace when the server's dist is missing or older than any
 * package source, so figures describe the code in the tree. BENCH_NO_BUILD=1 skips it.
 */
export async function ensureBuilt() {
  if ((process.env.BENCH_NO_BUILD === '1' || process.env.BENCH_TROVE_MAIN) && existsSync(MAIN)) return;
  const pkgs = readdirSync(join(ROOT, 'packages')).map((p) => join(ROOT, 'packages', p, 'src'));
  const sources = [...pkgs, join(ROOT, 'apps/server/src')];
  if (existsSync(MAIN) && statSync(MAIN).mtimeMs >= newestSource(sources)) return;
  process.stderr.write('bench: building the workspace (apps/server/dist is missing or stale)...\n');
  const r = await run('npx', ['-y', 'pnpm@10', 'build'], { cwd: ROOT });
  if (r.code !== 0) {
    if (!existsSync(MAIN)) throw new Error(`build failed:\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
    process.stderr.write('bench: build failed (someone may be mid-edit); measuring the existing dist\n');
  }
}

/** BENCH_TROVE_ENV="K=V,K2=V2": extra variables for the server (a setting's TR_ variable, a switch in a patched build). */
function extraEnv() {
  const raw = process.env.BENCH_TROVE_ENV ?? '';
  return Object.fromEntries(raw.split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

/**
 * Starts the built server pinned to core 0 with a fresh data dir. Resolves once
 * /healthz answers ok. `stop()` sends SIGTERM, waits for exit and removes the data dir.
 */
export async function startTrove({ env = {}, cpu = '0', dataDir, nodeArgs = [] } = {}) {
  const ownDir = !dataDir;
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'trove-bench-data-'));
  const port = await freePort();
  const started = performance.now();
  const child = track(spawn('taskset', ['-c', cpu, process.execPath, ...nodeArgs, MAIN], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TR_DATA_DIR: dir,
      TR_LISTEN: `127.0.0.1:${port}`,
      TR_BOOTSTRAP_ADMIN_USER: ADMIN.user,
      TR_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      TR_DEV: '1',
      ...extraEnv(),
      ...env,
    },
  }));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`trove exited ${code} before it was healthy: ${stderr}`))));
  try {
    await Promise.race([waitFor(`${url}/healthz`, { body: 'ok', everyMs: 5 }), exited]);
  } catch (err) {
    await stopChild(child);
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const healthyMs = performance.now() - started;
  exited.catch(() => {}); // a later exit is expected (stop)
  // taskset execs node, so the child's pid is the server's pid.
  const pid = child.pid;
  return {
    url,
    port,
    pid,
    dataDir: dir,
    healthyMs,
    memory: () => memoryOf(pid),
    async stop() {
      const code = await stopChild(child);
      if (ownDir) rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}

export const basicAuth = (user, password) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
/** The admin's password over Basic: it reads; changes need `asAdmin` (a UI session). */
export const adminAuth = () => basicAuth(ADMIN.user, ADMIN.password);

// otplib is auth's dependency; the bench borrows it rather than computing TOTP codes itself.
const { authenticator } = createRequire(join(ROOT, 'packages/auth/package.json'))('otplib');
const adminCookies = new Map();

/**
 * The bootstrap admin's full UI session, once per server: a password over Basic only reads, so
 * the bench signs in over the API and sets up TOTP (which turns the setup-only session into a full one).
 */
export function adminCookie(url) {
  if (!adminCookies.has(url)) {
    adminCookies.set(url, (async () => {
      const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: ADMIN.user, password: ADMIN.password }) });
      if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`);
      const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('tr_session='));
      if (!cookie) throw new Error('login set no tr_session cookie');
      const begin = await api(url, 'POST', '/api/security/totp/begin', { cookie, body: { name: 'bench' } });
      if (begin.status !== 200) throw new Error(`totp begin: ${begin.status} ${JSON.stringify(begin.body)}`);
      const code = authenticator.clone({ epoch: Date.now() - 30_000 }).generate(begin.body.secret);
      const confirm = await api(url, 'POST', '/api/security/totp/confirm', { cookie, body: { setup_id: begin.body.setup_id, code } });
      if (confirm.status !== 201) throw new Error(`totp confirm: ${confirm.status} ${JSON.stringify(confirm.body)}`);
      return cookie;
    })());
  }
  return adminCookies.get(url);
}

/**
 * A JSON call to the server's API; resolves {status, body}. `asAdmin` sends the bootstrap admin's
 * UI session, `auth` an Authorization header, `cookie` a given session.
 */
export async function api(url, method, path, { auth, body, asAdmin = false, cookie } = {}) {
  cookie ??= asAdmin ? await adminCookie(url) : undefined;
  const res = await fetch(url + path, {
    method,
    headers: {
      ...(auth ? { Authorization: auth } : {}),
      ...(cookie ? { Cookie: cookie } : {}),
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

/** Creates a raw repository as the bootstrap admin. */
export async function createRawRepo(url, name, { anonymousRead = false } = {}) {
  const r = await api(url, 'POST', '/api/repos', { asAdmin: true, body: { name, format: 'raw', config: {}, anonymous_read: anonymousRead } });
  if (r.status !== 201) throw new Error(`creating repo ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export { get };

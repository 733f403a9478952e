import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { authenticator } from 'otplib';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startProcess, type Running } from '../process.js';
import { launchBrowser, type Browser } from './browser.js';

export const ADMIN = { username: 'root', password: 'correct horse battery' };
const SHOTS = fileURLToPath(new URL('../../../../docs/screenshots/', import.meta.url));

export interface UiServer {
  srv: Running;
  /** `http://localhost:PORT`: WebAuthn refuses IP-address origins, so the browser uses this name. */
  base: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The built server as a process, with `base_url` on localhost (the passkey relying party) and cookies allowed over HTTP. */
async function startUiServer(env: Record<string, string> = {}): Promise<UiServer> {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const srv = await startProcess({
    TR_LISTEN: `127.0.0.1:${port}`,
    TR_BASE_URL: base,
    TR_COOKIE_SECURE: 'false',
    TR_BOOTSTRAP_ADMIN_USER: ADMIN.username,
    TR_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    ...env,
  });
  return { srv, base };
}

/** Stops the server and removes its data directory. */
async function stopUiServer(server: UiServer | undefined): Promise<void> {
  if (!server) return;
  await server.srv.stop();
  rmSync(server.srv.dataDir, { recursive: true, force: true });
}

/**
 * Registers the hooks of one test file: its server, started before the file's tests and
 * removed after them, and the browsers each test launches, closed after that test.
 * `ui.base` is the server's address once the tests run.
 */
export function uiSuite(env: Record<string, string> = {}) {
  let server: UiServer | undefined;
  const browsers: Browser[] = [];
  beforeAll(async () => {
    server = await startUiServer(env);
  });
  afterAll(async () => {
    await stopUiServer(server);
  });
  afterEach(async () => {
    await Promise.all(browsers.splice(0).map((b) => b.close()));
  });
  return {
    get base(): string {
      if (!server) throw new Error('the UI server is not started yet');
      return server.base;
    },
    async browser(viewport?: { width: number; height: number }): Promise<Browser> {
      const b = await launchBrowser(viewport);
      browsers.push(b);
      return b;
    },
  };
}

export const basicAuth = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

const adminSessions = new Map<string, Promise<SignedIn>>();

/**
 * The bootstrap admin signed in over the API with a TOTP authenticator, once per server: a
 * password over HTTP Basic only reads, so the harness's admin changes need a full UI session.
 */
export function adminSession(base: string): Promise<SignedIn> {
  if (!adminSessions.has(base)) adminSessions.set(base, signInWithTotp(base, ADMIN.username, ADMIN.password));
  return adminSessions.get(base)!;
}

/** One API call; without `headers`, as the signed-in bootstrap admin. */
export async function api<T = unknown>(base: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
  headers ??= { Cookie: (await adminSession(base)).cookie };
  const r = await fetch(`${base}${path}`, { method, headers: { 'Content-Type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A TOTP code `steps` time steps away from now (the server accepts one step either side, each step once). */
export const totpCode = (secret: string, steps = 0) => authenticator.clone({ epoch: Date.now() + steps * 30_000 }).generate(secret);

export interface SignedIn {
  cookie: string;
  secret: string;
}

/**
 * Signs a user in over the API (a setup-only session, since they have no second factor)
 * and sets up TOTP, which makes the session a full one. The setup spends the previous
 * step's code, so the current code is still free for the test's own use in the browser.
 */
export async function signInWithTotp(base: string, username: string, password: string): Promise<SignedIn> {
  const r = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username, password }) });
  if (r.status !== 200) throw new Error(`login: ${r.status} ${await r.text()}`);
  const cookie = r.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('tr_session='));
  if (!cookie) throw new Error('no tr_session cookie');
  const headers = { Cookie: cookie };
  const setup = await api<{ setup_id: string; secret: string }>(base, 'POST', '/api/security/totp/begin', { name: 'test' }, headers);
  await api(base, 'POST', '/api/security/totp/confirm', { setup_id: setup.setup_id, code: totpCode(setup.secret, -1) }, headers);
  return { cookie, secret: setup.secret };
}

/** Puts an API sign-in's session cookie into the browser. */
export async function useSession(context: BrowserContext, base: string, session: SignedIn): Promise<void> {
  const [name, value] = session.cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: base, httpOnly: true, sameSite: 'Lax' }]);
}

export async function createUser(base: string, username: string, password: string, isAdmin = false): Promise<void> {
  await api(base, 'POST', '/api/users', { username, password, is_admin: isAdmin });
}

export async function createRepo(base: string, name: string, format = 'raw', extra: Record<string, unknown> = {}): Promise<void> {
  await api(base, 'POST', '/api/repos', { name, format, ...extra });
}

export async function grant(base: string, repo: string, username: string, level: 'read' | 'write'): Promise<void> {
  await api(base, 'PUT', `/api/repos/${repo}/permissions/${username}`, { level });
}

/** A device key as the Gradle and Maven plugins make one: raw Ed25519 public key, base64url. */
export function deviceKey() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { publicKey: publicKey.export({ format: 'jwk' }).x!, privateKey };
}

/** Saves the page for the README (docs/screenshots/NAME.png). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
}

import { authenticator } from 'otplib';
import pino from 'pino';
import { Writable } from 'node:stream';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { rawFormat } from '@trove/format-raw';
import { jsonCall, type Answer } from '../json-call.js';
import { authModule, type AuthModule } from '../../src/index.js';
import { SESSION_COOKIE } from '../../src/sessions/cookies.js';
import { UiSessionStore } from '../../src/sessions/ui-sessions.js';

export const BASE_URL = 'https://trove.example.test';
export const ROOT_PASSWORD = 'root-password-1';
export type { Answer };

/**
 * The real auth module on a real server (SQLite file, raw format) with everything the
 * server logs at debug level captured. Every secret a test is handed (passwords, TOTP
 * seeds, recovery codes, tokens, cookies) is registered with `secret()`; `close()`
 * fails the test if any of them ever reached the log.
 */
export class Accounts {
  readonly secrets = new Set<string>();
  constructor(
    readonly s: TestServer,
    readonly auth: AuthModule,
    readonly logs: string[],
  ) {
    this.secret(ROOT_PASSWORD);
  }

  get url() {
    return this.s.url;
  }
  get ctx() {
    return this.s.ctx;
  }

  secret<T extends string>(v: T): T {
    if (v) this.secrets.add(v);
    return v;
  }

  /** A browser-like client with its own cookie jar. */
  client(): Client {
    return new Client(this);
  }

  /** Creates a local user through the admin API. */
  async user(username: string, opts: { admin?: boolean; password?: string } = {}): Promise<string> {
    const password = this.secret(opts.password ?? `${username}-password-1`);
    const r = await this.asRoot('/api/users', { body: { username, password, is_admin: !!opts.admin } });
    if (r.status !== 201) throw new Error(`create user: ${r.status} ${JSON.stringify(r.body)}`);
    return password;
  }

  private rootClient: Client | undefined;

  /**
   * `root` with a full UI session. A password over Basic only reads, so admin changes in tests
   * go through a session; it is opened in the store the sign-in routes use (as if root had
   * signed in with a second factor) so it adds no sign-in to the audit log. root is a local admin:
   * while `admin_password_login` is off (with SSO on) the session counts without the admin flag.
   */
  async admin(): Promise<Client> {
    this.rootClient ??= this.sessionOf('root');
    return this.rootClient;
  }

  /** A client holding a full UI session of `username`, opened in the store without a sign-in. */
  sessionOf(username: string): Client {
    const { token } = new UiSessionStore(this.ctx).create(this.ctx.users.byName(username)!, false);
    const client = this.client();
    client.cookies.set(SESSION_COOKIE, this.secret(token));
    return client;
  }

  /** One API call as the signed-in admin. */
  async asRoot(path: string, opts: CallOptions = {}): Promise<Answer> {
    return (await this.admin()).call(path, opts);
  }

  /** A client signed in (full session) as a user who already has a TOTP authenticator. */
  async withTotp(username: string, opts: { admin?: boolean } = {}): Promise<{ client: Client; totp: Totp; password: string }> {
    const password = await this.user(username, opts);
    const client = this.client();
    const login = await client.call('/api/auth/login', { body: { username, password } });
    if (login.status !== 200 || !login.body.second_factor_required) throw new Error(`setup login: ${login.status}`);
    const totp = await client.addTotp();
    return { client, totp, password };
  }

  async close(): Promise<void> {
    await this.s.close();
    const all = this.logs.join('');
    for (const s of this.secrets) {
      if (all.includes(s)) throw new Error(`a secret handed out during the test reached the log: ${s.slice(0, 4)}...`);
    }
  }
}

/** TOTP codes for a seed, at any offset in time steps (codes at distinct steps can each be used once). */
export class Totp {
  /** Steps this seed's codes were handed out for: each works once. */
  private readonly used = new Set<number>();
  constructor(readonly secret: string) {}
  code(stepOffset = 0): string {
    const step = Math.floor(Date.now() / 30_000) + stepOffset;
    this.used.add(step);
    return this.at(step);
  }
  /**
   * A code of the window around now (-1, 0, +1 steps) not handed out before. A relative offset is not
   * enough in a test that may cross a 30 s boundary: `code(-1)` then names the step an earlier `code()` used.
   */
  fresh(): string {
    const now = Math.floor(Date.now() / 30_000);
    const step = [now + 1, now, now - 1].find((s) => !this.used.has(s));
    if (step === undefined) throw new Error('every code of the current window was used; wait for the next step');
    this.used.add(step);
    return this.at(step);
  }
  private at(step: number): string {
    return authenticator.clone({ epoch: step * 30_000 + 15_000 }).generate(this.secret);
  }
}

export class Client {
  readonly cookies = new Map<string, string>();
  constructor(readonly h: Accounts) {}

  async call(path: string, opts: CallOptions = {}): Promise<Answer> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const r = await api(this.h, path, { ...opts, headers: { ...(cookie ? { cookie } : {}), ...opts.headers } });
    for (const line of r.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (!value || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, this.h.secret(value));
    }
    return r;
  }

  /** Begins and confirms a TOTP authenticator; returns its seed. */
  async addTotp(name = 'phone'): Promise<Totp> {
    const begin = await this.call('/api/security/totp/begin', { body: { name } });
    if (begin.status !== 200) throw new Error(`totp begin: ${begin.status} ${JSON.stringify(begin.body)}`);
    const totp = new Totp(this.h.secret(begin.body.secret));
    const confirm = await this.call('/api/security/totp/confirm', { body: { setup_id: begin.body.setup_id, code: totp.code() } });
    if (confirm.status !== 201) throw new Error(`totp confirm: ${confirm.status} ${JSON.stringify(confirm.body)}`);
    return totp;
  }
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  auth?: string;
  headers?: Record<string, string>;
}

export const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

export function api(h: { url: string }, path: string, opts: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers.authorization = opts.auth;
  return jsonCall(h.url + path, { ...opts, headers });
}

export async function startAccounts(opts: { env?: Record<string, string> } = {}): Promise<Accounts> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const s = await startTestServer({
    modules: [authModule({ bootstrapAdmin: { username: 'root', password: ROOT_PASSWORD } }), rawFormat],
    env: { TR_BASE_URL: BASE_URL, ...opts.env },
    log: pino({ level: 'debug' }, sink),
  });
  return new Accounts(s, s.instance<{ auth: AuthModule }>('auth').auth, logs);
}

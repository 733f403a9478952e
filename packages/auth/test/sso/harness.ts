import { startAccounts, type Accounts } from '../accounts/harness.js';
import { TestProvider, type TestAccount } from './provider.js';

export const CLIENT_ID = 'trove';
export const CLIENT_SECRET = 'sso-client-secret-1';

/** Accounts of the test provider most tests use. */
export const ACCOUNTS: TestAccount[] = [
  { sub: 'alice', claims: { email: 'alice@example.test', email_verified: true, name: 'Alice', groups: ['admins', 'developers'] } },
  { sub: 'bob', claims: { email: 'bob@example.test', email_verified: true, name: 'Bob', groups: ['developers'] } },
];

export interface Sso {
  h: Accounts;
  idp: TestProvider;
  /** The callback as the provider redirects to it (base_url + /api/auth/oidc/callback). */
  callback: string;
  close(): Promise<void>;
}

/**
 * A Trove server (auth module, real SQLite) and a real OpenID Connect provider, with SSO
 * configured the way an operator would: issuer, client, secret, admin values, and the
 * redirect URL from `base_url`. `settings` overrides any of them.
 */
export async function startSso(opts: { accounts?: TestAccount[]; settings?: Record<string, unknown>; tokenAuth?: 'client_secret_basic' | 'client_secret_post' } = {}): Promise<Sso> {
  // base_url comes from the database below (the port is known only now), not from the environment.
  const h = await startAccounts({ env: { TR_BASE_URL: undefined as unknown as string } });
  const localhost = h.url.replace('127.0.0.1', 'localhost');
  const callback = `${h.url}/api/auth/oidc/callback`;
  const idp = await TestProvider.start({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [callback, `${localhost}/api/auth/oidc/callback`],
    accounts: opts.accounts ?? ACCOUNTS,
    tokenAuth: opts.tokenAuth,
  });
  h.secret(CLIENT_SECRET);
  h.ctx.settings.setInternal({
    base_url: h.url,
    'oidc.issuer': idp.issuer,
    'oidc.client_id': CLIENT_ID,
    'oidc.client_secret': CLIENT_SECRET,
    'oidc.admin_values': ['admins'],
    'oidc.scopes': 'openid profile email groups',
    ...(opts.settings as Record<string, never>),
  });
  return {
    h,
    idp,
    callback,
    async close() {
      await h.close();
      await idp.stop();
    },
  };
}

interface Hop {
  url: string;
  status: number;
  location: string | null;
}

/**
 * A browser as far as redirects and cookies go: one cookie jar per origin (host and port),
 * redirects followed by hand so a test can stop at, replay or tamper with any hop.
 */
export class Browser {
  readonly jar = new Map<string, Map<string, string>>();
  constructor(private readonly sso: Sso) {}

  cookies(url: string): Map<string, string> {
    const origin = new URL(url).origin;
    if (!this.jar.has(origin)) this.jar.set(origin, new Map());
    return this.jar.get(origin)!;
  }

  /** One GET (or form POST), no redirect following; Set-Cookie lands in the jar. */
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Hop & { body: string; setCookies: string[] }> {
    const jar = this.cookies(url);
    const headers: Record<string, string> = {};
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const r = await fetch(url, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body: init.form ? new URLSearchParams(init.form) : undefined, redirect: 'manual' });
    const setCookies = r.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1);
      if (!value || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, this.sso.h.secret(value));
    }
    const location = r.headers.get('location');
    return { url, status: r.status, location: location && new URL(location, url).href, body: await r.text(), setCookies };
  }

  /**
   * Starts at `GET /api/auth/oidc/login` and follows the provider's redirects until it sends the
   * browser back to Trove's callback; returns that URL (with code and state) without opening it.
   */
  async toCallback(start = `${this.sso.h.url}/api/auth/oidc/login`, loginHint?: string): Promise<string> {
    const first = await this.request(start);
    if (first.status !== 302 || !first.location) throw new Error(`login: ${first.status} ${first.body}`);
    let url = first.location;
    if (loginHint) url += `&login_hint=${encodeURIComponent(loginHint)}`;
    for (let i = 0; i < 20; i++) {
      if (url.includes('/api/auth/oidc/callback')) return url;
      const hop = await this.request(url);
      if (!hop.location) throw new Error(`provider stopped at ${hop.status} ${url}: ${hop.body.slice(0, 300)}`);
      url = hop.location;
    }
    throw new Error('too many redirects');
  }

  /** The whole sign-in: where Trove finally sends the browser (`/` or `/#/login?error=...`). */
  async signIn(loginHint?: string, start?: string): Promise<string> {
    const cb = await this.toCallback(start, loginHint);
    this.sso.h.secret(new URL(cb).searchParams.get('code') ?? '');
    const r = await this.request(cb);
    if (r.status !== 302 || !r.location) throw new Error(`callback: ${r.status} ${r.body}`);
    return new URL(r.location).pathname + new URL(r.location).hash;
  }

  /** A JSON API call to Trove with this browser's cookies. */
  async api(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
    const jar = this.cookies(this.sso.h.url);
    const headers: Record<string, string> = {};
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(this.sso.h.url + path, { method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'), headers, body: init.body !== undefined ? JSON.stringify(init.body) : undefined });
    const text = await r.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: r.status, body };
  }
}

import { createHash } from 'node:crypto';
import { parse as parseCookies } from 'hono/utils/cookie';
import { unauthorized, USERNAME, type Credential, type CoreContext, type CredentialResolver, type UserRow } from '@trove/core';
import type { PublishTokenVerifier } from '../contracts.js';
import type { TokenBuckets } from '../rate-limit/token-buckets.js';
import { verifyPassword, verifyUserPassword } from '../accounts/passwords.js';
import { SESSION_COOKIE } from '../sessions/cookies.js';
import { withoutPasswordAdmin as stripPasswordAdmin } from '../sso/config.js';
import type { UiSessionStore } from '../sessions/ui-sessions.js';
import type { ReadTokenStore } from '../tokens/read-tokens.js';

/** How long a successful password check is remembered (see below). */
const PASSWORD_CACHE_MS = 60_000;

export interface ResolverDeps {
  publish: PublishTokenVerifier;
  failures: TokenBuckets;
  sessions: UiSessionStore;
  tokens: ReadTokenStore;
  /** Whether the user has a TOTP authenticator or passkey (a setup-only session then no longer counts). */
  hasSecondFactor(userId: string): boolean;
}

/**
 * The one credential resolver for `/api/` and the format routes: HTTP Basic with a
 * password, a `trp_` read token or a `trs_` publish token (any user name), `Bearer trs_...`,
 * and on `/api/` only the `tr_session` cookie. An Authorization header wins over the cookie.
 *
 * Maven and Gradle send the password on every GET; running scrypt each time would make
 * every artifact read cost ~0.3 s. A successful check is therefore remembered for a
 * minute in memory, keyed by SHA-256 of (user id, credentials version, password): a
 * password change or a disabled user bumps the version, so the entry stops matching at
 * once. Only hashes are kept; the password itself is never stored.
 */
export function credentialResolver(ctx: CoreContext, deps: ResolverDeps): CredentialResolver {
  const verified = new Map<string, number>();
  /**
   * Checks in flight, by the same key: Maven and Gradle open many connections at once with the
   * same password, and each would otherwise start its own scrypt (128 MiB, ~0.3 s) before the
   * first one fills the cache; 32 at once stalled every request for seconds (bench W2).
   */
  const inflight = new Map<string, Promise<boolean>>();

  const cacheKey = (u: UserRow, password: string) =>
    createHash('sha256').update(`${u.id}\0${u.credentialsVersion}\0${password}`).digest('hex');

  /**
   * With `admin_password_login` off (and SSO on), a local admin's password is no admin
   * credential on `/api/`: the caller gets only what the account could do without the admin
   * flag, so every admin check (`requireAdmin`, user changes, device admin) refuses it.
   * Format routes keep reading as before: reads are no admin route. A local admin's UI session
   * began with that password, so it is judged the same way on each request (the setting is live).
   */
  const withoutPasswordAdmin = (user: UserRow): UserRow => stripPasswordAdmin((k) => ctx.settings.get(k), user);
  const passwordUser = (user: UserRow, surface: 'api' | 'format'): Credential =>
    ({ type: 'user', via: 'password', user: surface === 'api' ? withoutPasswordAdmin(user) : user });

  /**
   * A failed check: audited, then 401. Counting it is `failures.limit`'s job (the 401 keeps its token).
   * A password attempt names its user only when one has that name: a name field often holds what
   * belongs in the password field (a token in `curl -u "$TOKEN:"`, a password typed one field early).
   */
  const refuse = (ip: string, surface: 'api' | 'format', what: string, attempt?: { user: UserRow | undefined }, message = 'invalid credentials') => {
    const name = attempt?.user?.username ?? '';
    const detail = { credential: what, surface, ...(attempt && !attempt.user ? { reason: 'unknown user' } : {}) };
    ctx.audit.record({ action: 'auth.failed', actor: name, ip, target: name, detail });
    return unauthorized(message, surface === 'format');
  };

  function publish(token: string, ip: string, surface: 'api' | 'format'): Promise<Credential> {
    return deps.failures.limit([`ip:${ip}`], async () => {
      const grant = await deps.publish.verify(token);
      if (!grant) throw refuse(ip, surface, 'publish token', undefined, 'invalid, closed or expired publish session');
      return { type: 'publish', grant } as const;
    });
  }

  function readToken(token: string, ip: string, surface: 'api' | 'format'): Promise<Credential> {
    return deps.failures.limit([`ip:${ip}`], () => {
      const found = deps.tokens.verify(token);
      if (!found) throw refuse(ip, surface, 'read token', undefined, 'invalid, expired or deleted read token');
      return { type: 'user', via: 'read_token', user: found.user, credentialId: found.row.id, expiresAt: found.row.expiresAt?.getTime() } as const;
    });
  }

  /** A stale or unknown cookie is no credential at all: the caller is anonymous and may sign in again. */
  function session(cookieHeader: string | undefined): Credential {
    const token = cookieHeader ? parseCookies(cookieHeader, SESSION_COOKIE)[SESSION_COOKIE] : undefined;
    if (!token) return { type: 'anonymous' };
    const s = deps.sessions.resolve(token);
    if (!s) return { type: 'anonymous' };
    // A setup-only session was a password alone. Once the user has a second factor it proves too
    // little: ending such sessions when a factor is added is the rule, this is the backstop.
    if (s.session.setupOnly && deps.hasSecondFactor(s.user.id)) {
      deps.sessions.endById(s.session.id);
      return { type: 'anonymous' };
    }
    return { type: 'user', via: 'session', user: withoutPasswordAdmin(s.user), setupOnly: s.session.setupOnly, credentialId: s.session.id };
  }

  return {
    async resolve(req) {
      const h = req.authorization?.trim();
      if (!h) return req.surface === 'api' ? session(req.cookie) : { type: 'anonymous' };
      const space = h.indexOf(' ');
      const scheme = (space < 0 ? h : h.slice(0, space)).toLowerCase();
      const value = space < 0 ? '' : h.slice(space + 1).trim();
      if (scheme === 'bearer' && value.startsWith('trs_')) return publish(value, req.ip, req.surface);
      if (scheme === 'bearer' && value.startsWith('trp_')) return readToken(value, req.ip, req.surface);
      if (scheme !== 'basic') throw unauthorized('unsupported authorization scheme', req.surface === 'format');
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) {
        deps.failures.fail([`ip:${req.ip}`]);
        throw refuse(req.ip, req.surface, 'malformed basic');
      }
      const username = decoded.slice(0, colon);
      const password = decoded.slice(colon + 1);
      if (password.startsWith('trs_')) return publish(password, req.ip, req.surface);
      if (password.startsWith('trp_')) return readToken(password, req.ip, req.surface);

      // A name no account can have is not looked up: the user service remembers misses, and a
      // header's name can be kilobytes long.
      const user = USERNAME.test(username) ? ctx.users.byName(username) : undefined;
      const keys = [`ip:${req.ip}`, `user:${username.toLowerCase()}`];
      const eligible = !!user && !user.disabled && user.kind === 'local';
      const key = eligible ? cacheKey(user, password) : undefined;
      // A password already proven (or being proven right now by an identical request) costs no
      // attempt: Maven's parallel GETs must not use up the guessing budget or wait for it.
      const until = key ? verified.get(key) : undefined;
      if (until && until > Date.now()) return passwordUser(user!, req.surface);
      const joined = key ? inflight.get(key) : undefined;
      if (joined) {
        if (!(await joined)) throw refuse(req.ip, req.surface, 'password', { user });
        return passwordUser(user!, req.surface);
      }
      return deps.failures.limit(keys, async () => {
        if (!eligible || !key) {
          await verifyUserPassword(password, undefined, false);
          throw refuse(req.ip, req.surface, 'password', { user });
        }
        const check = verifyPassword(password, user!.passwordHash).finally(() => inflight.delete(key));
        inflight.set(key, check);
        if (!(await check)) throw refuse(req.ip, req.surface, 'password', { user });
        if (verified.size > 10_000) verified.clear();
        verified.set(key, Date.now() + PASSWORD_CACHE_MS);
        return passwordUser(user!, req.surface);
      });
    },
  };
}

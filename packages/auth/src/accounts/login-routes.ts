import { Hono, type Context } from 'hono';
import { badRequest, forbidden, readJsonObject, unauthorized, USERNAME, type CoreContext, type TroveEnv, type UserRow } from '@trove/core';
import type { TokenBuckets } from '../rate-limit/token-buckets.js';
import { attemptKeys, type LoginMethod, type SecondFactors } from '../second-factor/index.js';
import { clearLoginCookie, clearSessionCookie, loginCookie, sessionCookie, setLoginCookie, setSessionCookie } from '../sessions/cookies.js';
import type { PendingLogins } from '../sessions/pending-logins.js';
import type { UiSessionStore } from '../sessions/ui-sessions.js';
import { adminPasswordAllowed, ssoConfig } from '../sso/config.js';
import { meJson } from './me.js';
import { verifyUserPassword } from './passwords.js';

export interface LoginParts {
  ctx: CoreContext;
  factors: SecondFactors;
  sessions: UiSessionStore;
  pending: PendingLogins;
  failures: TokenBuckets;
}

const ipOf = (c: Context<TroveEnv>) => c.get('clientIp') ?? '0.0.0.0';

/** Hosts whose plain-http pages browsers treat as secure contexts, so they keep Secure cookies there. */
const LOOPBACK = /^(localhost|.*\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * A browser on a plain-http page drops the Secure cookies sign-in sets, and the next step then
 * fails with "sign-in expired" for no visible reason. Its Origin says which page it is on: say
 * why instead, before a password is checked.
 */
function refuseUnkeepableCookies(c: Context<TroveEnv>, secureCookies: boolean): void {
  const origin = c.req.header('origin');
  if (!secureCookies || !origin?.startsWith('http://')) return;
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    return;
  }
  if (LOOPBACK.test(host)) return;
  throw badRequest(
    `this page was opened over plain http (${origin}), where browsers drop Trove's sign-in cookies (cookie.secure is on): ` +
      'open Trove over https, or, for a plain-http test install, an admin sets TR_COOKIE_SECURE=false',
  );
}

/**
 * `/api/auth/...` and `/api/me`: the SPEC's "Sign-in" state table.
 * none --login--> pending sign-in (`tr_login`) when the user has a second factor, else a
 * setup-only session; pending --second (correct)--> full session (`tr_session`).
 */
export function loginRoutes({ ctx, factors, sessions, pending, failures }: LoginParts): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();
  const body = (c: Context<TroveEnv>) => readJsonObject(c, ctx.settings.int('max_json_bytes'));

  const startSession = (c: Context<TroveEnv>, user: UserRow, setupOnly: boolean) => {
    const { token, session } = sessions.create(user, setupOnly);
    setSessionCookie(ctx, c, token, session.expiresAt);
    ctx.audit.record({ action: 'login', actor: user.username, ip: ipOf(c), target: user.username, detail: { setup_only: setupOnly } });
    return c.json(meJson(user, factors));
  };

  const setting = (key: string) => ctx.settings.get(key);

  app.get('/auth/config', (c) =>
    c.json({
      password_login: true,
      oidc: ssoConfig(setting) !== null,
      admin_password_login: adminPasswordAllowed(setting),
    }),
  );

  app.post('/auth/login', async (c) => {
    refuseUnkeepableCookies(c, ctx.settings.bool('cookie.secure'));
    const b = await body(c);
    if (typeof b.username !== 'string' || !b.username || typeof b.password !== 'string') throw badRequest('username and password are required');
    // A name no account can have (core's USERNAME rule) is no sign-in attempt: refused before the
    // limiter and the user lookup, each of which would otherwise keep the name (up to max_json_bytes).
    if (!USERNAME.test(b.username)) throw badRequest('not a valid user name');
    const ip = ipOf(c);
    const username = b.username;
    const password = b.password;
    const user = await failures.limit(attemptKeys(ip, username), async () => {
      const found = ctx.users.byName(username);
      const ok = await verifyUserPassword(password, found?.passwordHash, !!found && !found.disabled && found.kind === 'local');
      if (!ok || !found) {
        // Only a user's own name: an unknown one is often a password or token typed into the wrong field.
        const name = found?.username ?? '';
        ctx.audit.record({ action: 'login.failed', actor: name, ip, target: name, detail: { reason: reasonOf(found) } });
        // One answer for every reason: saying "signs in with SSO" told anyone which names are SSO admins.
        throw unauthorized('wrong user name or password', false);
      }
      return found;
    });
    if (user.isAdmin && !adminPasswordAllowed(setting)) {
      ctx.audit.record({ action: 'login.refused', actor: user.username, ip, target: user.username, detail: { reason: 'admin_password_login is off' } });
      throw forbidden('administrators sign in with SSO');
    }
    if (!factors.hasSecondFactor(user.id)) return startSession(c, user, true);
    setLoginCookie(ctx, c, pending.create(user));
    return c.json({ second_factor: true, methods: factors.methods(user.id) });
  });

  /** The pending sign-in and its user, or 401 (missing, expired, or the user changed meanwhile). */
  const pendingUser = (c: Context<TroveEnv>) => {
    const token = loginCookie(c);
    const p = pending.get(token);
    const user = p ? ctx.users.byId(p.userId) : undefined;
    if (!p || !token || !user || user.disabled || user.credentialsVersion !== p.credentialsVersion) {
      clearLoginCookie(ctx, c);
      throw unauthorized('sign-in expired; enter your password again', false);
    }
    return { token, p, user };
  };

  app.post('/auth/login/passkey', async (c) => {
    const { p, user } = pendingUser(c);
    const publicKey = await factors.passkeys.assertionOptions(user);
    p.challenge = publicKey.challenge;
    return c.json({ publicKey });
  });

  app.post('/auth/login/second', async (c) => {
    const { token, p, user } = pendingUser(c);
    const ip = ipOf(c);
    factors.check(user, ip);
    const b = await body(c);
    const given = (['totp_code', 'passkey', 'recovery_code'] as const).filter((k) => b[k] !== undefined && b[k] !== null);
    if (given.length !== 1) throw badRequest('send exactly one of totp_code, passkey or recovery_code');
    const method = await factors.attempt(user, ip, 'login.second_factor_failed', async (): Promise<LoginMethod | null> => {
      if (given[0] === 'totp_code' && factors.totp.verify(user.id, b.totp_code)) return 'totp';
      if (given[0] === 'recovery_code' && factors.recovery.consume(user.id, b.recovery_code)) return 'recovery_code';
      if (given[0] === 'passkey') {
        const challenge = p.challenge;
        p.challenge = undefined; // one assertion per challenge
        if (challenge && (await factors.passkeys.verify(user, b.passkey, challenge))) return 'passkey';
      }
      return null;
    });
    pending.end(token);
    clearLoginCookie(ctx, c);
    ctx.log.info({ user: user.username, method }, 'signed in');
    return startSession(c, user, false);
  });

  app.post('/auth/logout', (c) => {
    const token = sessionCookie(c);
    const cred = c.get('credential');
    if (token && sessions.end(token) && cred.type === 'user') {
      ctx.audit.recordFor(c, { action: 'logout', target: cred.user.username });
    }
    clearSessionCookie(ctx, c);
    return c.body(null, 204);
  });

  return app;
}

function reasonOf(user: UserRow | undefined): string {
  if (!user) return 'unknown user';
  if (user.disabled) return 'disabled';
  if (user.kind !== 'local') return 'sso user';
  return 'wrong password';
}

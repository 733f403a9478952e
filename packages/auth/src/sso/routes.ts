import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { invalidSettings, notFound, readJsonObject, requireAdmin, unavailable, type CoreContext, type SettingValue, type TroveEnv } from '@trove/core';
import type { TokenBuckets } from '../rate-limit/token-buckets.js';
import { setSessionCookie } from '../sessions/cookies.js';
import type { UiSessionStore } from '../sessions/ui-sessions.js';
import { adminReason } from './admin-rights.js';
import { redirectUrlOf, ssoConfig } from './config.js';
import { describe, discover, type DiscoveryCache } from './discovery.js';
import { PENDING_SSO_MS, type SsoFlow } from './flow.js';
import { SsoFailure, type SsoUsers } from './users.js';

export interface SsoParts {
  ctx: CoreContext;
  flow: SsoFlow;
  discovery: DiscoveryCache;
  users: SsoUsers;
  sessions: UiSessionStore;
  /**
   * Sign-in starts per client IP: each keeps a sign-in in progress (of at most 10,000) and may fetch
   * discovery. It also bounds the callbacks that reach the provider's token endpoint: only a callback
   * with the cookie of a started sign-in gets that far, once.
   */
  starts: TokenBuckets;
}

/** Binds a started SSO sign-in to the browser; only the two SSO routes ever see it. */
const STATE_COOKIE = 'tr_oidc';
const STATE_PATH = '/api/auth/oidc';

/** A change of any of these fetches the discovery document before anything is saved (SPEC). */
const DISCOVERY_KEYS = ['oidc.issuer', 'oidc.client_id', 'oidc.client_secret', 'oidc.redirect_url', 'oidc.scopes'];

const ipOf = (c: Context<TroveEnv>) => c.get('clientIp') ?? '0.0.0.0';

/**
 * `GET /api/auth/oidc/login` and `/callback` (SPEC "Sign-in and account routes") and
 * `POST /api/settings/oidc/test`; also installs the settings check on SSO changes.
 */
export function ssoRoutes({ ctx, flow, discovery, users, sessions, starts }: SsoParts): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();
  const secure = () => ctx.settings.bool('cookie.secure');
  const get = (key: string) => ctx.settings.get(key);

  /** Discovery for a settings check: the issuer as it would be, and a redirect URL that is a URL. */
  async function check(next: (key: string) => SettingValue): Promise<string | null> {
    const issuer = String(next('oidc.issuer') ?? '').trim();
    if (!issuer) return 'oidc.issuer is empty';
    const redirect = redirectUrlOf(next);
    if (redirect && !/^https?:\/\/[^/]/.test(redirect)) return 'the redirect URL must start with http:// or https://';
    try {
      discovery.prime(issuer, await discover(issuer));
      return null;
    } catch (err) {
      return describe(err);
    }
  }

  ctx.settings.addPatchHook(async ({ changes, next }) => {
    if (!DISCOVERY_KEYS.some((k) => changes.has(k))) return;
    if (String(next('oidc.issuer') ?? '').trim() === '') return; // SSO turned off: nothing to fetch
    const error = await check(next);
    if (error) throw invalidSettings('SSO discovery failed; nothing was saved', { 'oidc.issuer': error });
  });

  app.post('/settings/oidc/test', async (c) => {
    requireAdmin(c);
    const b = await readJsonObject(c, ctx.settings.int('max_json_bytes'));
    for (const key of [...DISCOVERY_KEYS, 'base_url']) {
      if (b[key] !== undefined && b[key] !== null && typeof b[key] !== 'string') return c.json({ ok: false, error: `${key} must be a string` }, 400);
    }
    // The PATCH body merged over the current values; "" keeps a secret, null resets to empty.
    const next = (key: string): SettingValue => {
      const v = b[key];
      if (v === undefined || (key === 'oidc.client_secret' && v === '')) return get(key);
      return (v as string | null) ?? '';
    };
    const error = await check(next);
    return error ? c.json({ ok: false, error }, 400) : c.json({ ok: true });
  });

  app.get('/auth/oidc/login', async (c) => {
    const cfg = ssoConfig(get);
    if (!cfg) throw notFound('SSO is not configured');
    // A browser navigation: the refusal goes back to the sign-in page in words, not as a JSON 429.
    if (!starts.take(`ip:${ipOf(c)}`)) return refuse(c, 'rate_limited');
    let provider;
    try {
      provider = await discovery.get(cfg.issuer);
    } catch (err) {
      ctx.log.warn({ issuer: cfg.issuer, reason: describe(err) }, 'SSO discovery failed');
      throw unavailable('the identity provider cannot be reached; try again later');
    }
    const { url, cookie } = await flow.start(cfg, provider);
    setCookie(c, STATE_COOKIE, cookie, { path: STATE_PATH, httpOnly: true, sameSite: 'Lax', secure: secure(), maxAge: PENDING_SSO_MS / 1000 });
    c.header('cache-control', 'no-store');
    return c.redirect(url, 302);
  });

  app.get('/auth/oidc/callback', async (c) => {
    const cookie = getCookie(c, STATE_COOKIE);
    deleteCookie(c, STATE_COOKIE, { path: STATE_PATH, httpOnly: true, sameSite: 'Lax', secure: secure() });
    c.header('cache-control', 'no-store');
    const ip = ipOf(c);
    try {
      const entry = flow.take(cookie);
      const cfg = ssoConfig(get);
      if (!cfg) throw new SsoFailure('sso_failed', 'SSO was turned off during the sign-in');
      if (cfg.issuer !== entry.issuer) throw new SsoFailure('sso_failed', 'oidc.issuer changed during the sign-in');
      const provider = await discovery.get(cfg.issuer).catch((err) => {
        throw new SsoFailure('sso_failed', describe(err));
      });
      const identity = await flow.finish(cfg, provider, entry, new URL(c.req.url));
      const sources = identity.userinfo ? [identity.idToken, identity.userinfo] : [identity.idToken];
      const why = adminReason(cfg, sources);
      // ID token claims win over userinfo; userinfo fills in what the ID token left out.
      const user = users.signIn(identity.issuer, { ...identity.userinfo, ...identity.idToken }, why !== null);
      const { token, session } = sessions.create(user, false, cfg.sessionTtlMs);
      setSessionCookie(ctx, c, token, session.expiresAt);
      ctx.audit.record({ action: 'login', actor: user.username, ip, target: user.username, detail: { sso: true, admin_by: why } });
      ctx.log.info({ user: user.username, method: 'sso' }, 'signed in');
      return c.redirect('/', 302);
    } catch (err) {
      const failure = err instanceof SsoFailure ? err : new SsoFailure('sso_failed', `unexpected error: ${describe(err)}`);
      if (!(err instanceof SsoFailure)) ctx.log.error({ err }, 'SSO callback failed');
      // The reason for the operator; the browser only learns the category.
      ctx.log.warn({ reason: failure.reason, why: failure.why }, 'SSO sign-in refused');
      ctx.audit.record({ action: 'login.failed', actor: '', ip, target: '', detail: { sso: true, reason: failure.reason, why: failure.why.slice(0, 500) } });
      return refuse(c, failure.reason);
    }
  });

  return app;
}

/** Back to the sign-in page, which explains `reason` (SPEC: `/#/login?error=<reason>`). */
function refuse(c: Context<TroveEnv>, reason: string): Response {
  c.header('cache-control', 'no-store');
  return c.redirect(`/#/login?error=${reason}`, 302);
}

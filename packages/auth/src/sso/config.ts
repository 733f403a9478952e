import { parseDuration, type SettingValue, type UserRow } from '@trove/core';

/** The `oidc.*` settings SSO runs on, resolved. */
export interface SsoConfig {
  /** Exactly as configured, only whitespace trimmed: the provider's `issuer` must equal it. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUrl: string;
  /** Space-separated, `openid` always first. */
  scope: string;
  adminClaim: string;
  adminValues: string[];
  adminEmails: string[];
  sessionTtlMs: number;
}

type Get = (key: string) => SettingValue;

const str = (get: Get, key: string) => String(get(key) ?? '').trim();
const list = (get: Get, key: string) => {
  const v = get(key);
  return Array.isArray(v) ? v.map((s) => s.trim()).filter(Boolean) : [];
};

/** `base_url` + the callback path, unless `oidc.redirect_url` names another. */
export function redirectUrlOf(get: Get): string {
  const explicit = str(get, 'oidc.redirect_url');
  if (explicit) return explicit;
  const base = str(get, 'base_url').replace(/\/+$/, '');
  return base ? `${base}/api/auth/oidc/callback` : '';
}

/**
 * SSO is on only when everything it needs is set (SPEC, paragraph after the settings table):
 * issuer, client ID, secret, at least one of admin values or admin emails, and a redirect URL
 * (`oidc.redirect_url` or `base_url`). Anything missing: null, and the SSO routes answer 404.
 * `get` is the registry's `get`, or a pending PATCH's `next` to judge a change before saving it.
 */
export function ssoConfig(get: Get): SsoConfig | null {
  const issuer = str(get, 'oidc.issuer');
  const clientId = str(get, 'oidc.client_id');
  const clientSecret = String(get('oidc.client_secret') ?? '');
  const redirectUrl = redirectUrlOf(get);
  const adminValues = list(get, 'oidc.admin_values');
  const adminEmails = list(get, 'oidc.admin_emails').map((e) => e.toLowerCase());
  if (!issuer || !clientId || !clientSecret || !redirectUrl || (adminValues.length === 0 && adminEmails.length === 0)) return null;
  const scopes = str(get, 'oidc.scopes').split(/\s+/).filter((s) => s && s !== 'openid');
  return {
    issuer,
    clientId,
    clientSecret,
    redirectUrl,
    scope: ['openid', ...new Set(scopes)].join(' '),
    adminClaim: str(get, 'oidc.admin_claim'),
    adminValues,
    adminEmails,
    sessionTtlMs: parseDuration(String(get('oidc.session_ttl'))) ?? 12 * 3_600_000,
  };
}

/**
 * Whether a local admin's password counts (UI sign-in and HTTP Basic on `/api/`).
 * `admin_password_login: false` "needs SSO": it takes effect only while SSO is on, so
 * clearing the SSO settings can never lock every administrator out.
 */
export function adminPasswordAllowed(get: Get): boolean {
  return get('admin_password_login') !== false || ssoConfig(get) === null;
}

/**
 * A local admin's rights while `admin_password_login` is off (with SSO on): the user without the
 * admin flag. Everything such an admin holds was opened with the password, directly (HTTP Basic,
 * a UI session) or through a device or manual publish session approved with it, possibly before
 * the switch; each is judged by this on every use, since the setting is live. Other users as is.
 */
export function withoutPasswordAdmin(get: Get, user: UserRow): UserRow {
  return user.isAdmin && user.kind === 'local' && !adminPasswordAllowed(get) ? { ...user, isAdmin: false } : user;
}

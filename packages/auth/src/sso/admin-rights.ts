import type { SsoConfig } from './config.js';

export type Claims = Record<string, unknown>;

/**
 * The value at `path` in a claims object. A claim whose whole name is `path` wins (namespaced
 * claims such as `https://example.com/roles` contain dots); otherwise the dots walk into
 * nested objects, e.g. Keycloak's `realm_access.roles`.
 */
export function claimAt(claims: Claims, path: string): unknown {
  if (!path) return undefined;
  if (Object.hasOwn(claims, path)) return claims[path];
  let v: unknown = claims;
  for (const part of path.split('.')) {
    if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, part)) return undefined;
    v = (v as Claims)[part];
  }
  return v;
}

/** A claim holding a string or an array; other shapes (objects, numbers) carry no values. */
function claimValues(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

/** Only the boolean `true`, or the string some providers send in its place. */
const verified = (v: unknown) => v === true || v === 'true';

/**
 * Why this identity is an admin (SPEC "Authentication" rule 5), or null when it is not:
 * the admin claim, in the ID token or at userinfo, contains one of `oidc.admin_values`
 * (exact, case-sensitive); or an email the same source marks verified is in
 * `oidc.admin_emails` (case-insensitive).
 */
export function adminReason(cfg: Pick<SsoConfig, 'adminClaim' | 'adminValues' | 'adminEmails'>, sources: Claims[]): 'claim' | 'email' | null {
  for (const claims of sources) {
    if (claimValues(claimAt(claims, cfg.adminClaim)).some((v) => cfg.adminValues.includes(v))) return 'claim';
  }
  for (const claims of sources) {
    if (typeof claims.email === 'string' && verified(claims.email_verified) && cfg.adminEmails.includes(claims.email.toLowerCase())) return 'email';
  }
  return null;
}

import { CredentialCache, type CoreContext, type Credential, type CredentialResolver, type Lookup } from '@trove/core';
import type { ReadTokenStore } from '../tokens/read-tokens.js';

/**
 * Puts core's CredentialCache in front of a resolver: an Authorization header that resolved
 * before, and whose user, token, session and grants nobody changed since (the `access`
 * generation), gets the same credential without the password, token or session check; the
 * first request pays for it, every later GET from the same Maven or apt client does not.
 * A read token used through the cache still has its `last_used_at` written once a minute.
 * Requests without an Authorization header (anonymous, or the UI's session cookie) pass through.
 */
export function cachedResolver(ctx: CoreContext, inner: CredentialResolver, tokens: ReadTokenStore): CredentialResolver {
  const cache = new CredentialCache(ctx.generations);
  // What a password resolves to depends on admin_password_login and SSO (an admin's password loses
  // its admin rights on /api while SSO takes admins): a change of them ends every cached entry.
  ctx.settings.watch(['admin_password_login', 'oidc.issuer', 'oidc.client_id', 'oidc.client_secret', 'oidc.redirect_url', 'oidc.admin_values', 'oidc.admin_emails', 'base_url'], () =>
    ctx.generations.bump('access'),
  );
  // Keyed by surface too: the same password resolves differently on /api and on the format routes.
  const keyOf = (surface: string, authorization: string) => `${surface} ${authorization}`;
  // The last header of each keep-alive connection and its digest: Maven, Gradle and apt send the
  // same header on every request of a connection, and hashing it again was most of what a
  // credential still cost over anonymous on the lean path (bench W2). The header is compared,
  // never trusted by position, and lives only as long as the connection that sent it.
  const lastOnConnection = new WeakMap<object, { header: string; digest: string }>();
  return {
    // The lean path takes only fresh entries; a stale one goes to `resolve`, which renews it.
    cached(authorization, connection) {
      let last = connection && lastOnConnection.get(connection);
      if (!last || last.header !== authorization) {
        last = { header: authorization, digest: CredentialCache.digest(keyOf('format', authorization)) };
        if (connection) lastOnConnection.set(connection, last);
      }
      return cache.fresh(last.digest);
    },
    async resolve(req) {
      const h = req.authorization;
      if (!h) return inner.resolve(req);
      const entry = cache.lookup(keyOf(req.surface, h));
      if (entry.renew) {
        // Checked again off the request's path; a failure (counted and audited as any other) removes the entry.
        inner.resolve(req).then(
          (cred) => keep(entry, cred),
          () => entry.forget(),
        );
      }
      if (entry.hit) return entry.hit;
      return keep(entry, await inner.resolve(req));
    },
  };

  function keep(entry: Lookup, cred: Credential): Credential {
    if (cred.type === 'user' && cred.via === 'read_token' && cred.credentialId) {
      const id = cred.credentialId;
      // touch() writes at most once a minute, but even asking costs a row lookup per GET, the one
      // thing a read token still paid over a password on the lean path (bench W2): ask once a second.
      let askAfter = 0;
      const onHit = () => {
        const now = Date.now();
        if (now < askAfter) return;
        askAfter = now + 1000;
        tokens.touch(id);
      };
      return entry.remember(cred, { expiresAt: cred.expiresAt, onHit });
    }
    if (cred.type === 'user' && cred.via === 'password') return entry.remember(cred);
    if (cred.type === 'publish') return entry.remember(cred, { expiresAt: cred.grant.expiresAt });
    entry.forget();
    return cred;
  }
}

import { CredentialCache, type CoreContext, type CredentialResolver } from '@trove/core';
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
  return {
    cached: (authorization) => cache.lookup(authorization).hit,
    async resolve(req) {
      const h = req.authorization;
      if (!h) return inner.resolve(req);
      const entry = cache.lookup(h);
      if (entry.hit) return entry.hit;
      const cred = await inner.resolve(req);
      if (cred.type === 'user' && cred.via === 'read_token' && cred.credentialId) {
        const id = cred.credentialId;
        return entry.remember(cred, { expiresAt: cred.expiresAt, onHit: () => tokens.touch(id) });
      }
      if (cred.type === 'user' && cred.via === 'password') return entry.remember(cred);
      if (cred.type === 'publish') return entry.remember(cred, { expiresAt: cred.grant.expiresAt });
      return cred;
    },
  };
}

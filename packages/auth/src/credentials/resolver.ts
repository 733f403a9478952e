import { createHash } from 'node:crypto';
import { unauthorized, type Credential, type CoreContext, type CredentialResolver, type UserRow } from '@trove/core';
import type { PublishTokenVerifier } from '../contracts.js';
import type { TokenBuckets } from '../rate-limit/token-buckets.js';
import { verifyPassword } from '../accounts/passwords.js';

/** How long a successful password check is remembered (see below). */
const PASSWORD_CACHE_MS = 60_000;

/**
 * The one credential resolver for `/api/` and the format routes: HTTP Basic with a
 * password or a `trs_` publish token (any user name), or `Bearer trs_...` on `/api/`.
 *
 * Maven and Gradle send the password on every GET; running scrypt each time would make
 * every artifact read cost ~0.3 s. A successful check is therefore remembered for a
 * minute in memory, keyed by SHA-256 of (user id, credentials version, password): a
 * password change or a disabled user bumps the version, so the entry stops matching at
 * once. Only hashes are kept; the password itself is never stored.
 */
export function credentialResolver(ctx: CoreContext, deps: { publish: PublishTokenVerifier; failures: TokenBuckets }): CredentialResolver {
  const verified = new Map<string, number>();

  const cacheKey = (u: UserRow, password: string) =>
    createHash('sha256').update(`${u.id}\0${u.credentialsVersion}\0${password}`).digest('hex');

  const refuse = (keys: string[], surface: 'api' | 'format', message = 'invalid credentials') => {
    deps.failures.fail(keys);
    return unauthorized(message, surface === 'format');
  };

  async function publish(token: string, ip: string, surface: 'api' | 'format'): Promise<Credential> {
    deps.failures.check([`ip:${ip}`]);
    const grant = await deps.publish.verify(token);
    if (!grant) throw refuse([`ip:${ip}`], surface, 'invalid, closed or expired publish session');
    return { type: 'publish', grant };
  }

  return {
    async resolve(req) {
      const h = req.authorization?.trim();
      if (!h) return { type: 'anonymous' };
      const space = h.indexOf(' ');
      const scheme = h.slice(0, space).toLowerCase();
      const value = h.slice(space + 1).trim();
      if (scheme === 'bearer' && value.startsWith('trs_')) return publish(value, req.ip, req.surface);
      if (scheme !== 'basic') throw unauthorized('unsupported authorization scheme', req.surface === 'format');
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) throw refuse([`ip:${req.ip}`], req.surface);
      const username = decoded.slice(0, colon);
      const password = decoded.slice(colon + 1);
      if (password.startsWith('trs_')) return publish(password, req.ip, req.surface);

      const keys = [`ip:${req.ip}`, `user:${username.toLowerCase()}`];
      deps.failures.check(keys);
      const user = ctx.users.byName(username);
      if (!user || user.disabled || user.kind !== 'local') throw refuse(keys, req.surface);
      const key = cacheKey(user, password);
      const until = verified.get(key);
      if (until && until > Date.now()) return { type: 'user', via: 'password', user };
      if (!(await verifyPassword(password, user.passwordHash))) throw refuse(keys, req.surface);
      if (verified.size > 10_000) verified.clear();
      verified.set(key, Date.now() + PASSWORD_CACHE_MS);
      return { type: 'user', via: 'password', user };
    },
  };
}

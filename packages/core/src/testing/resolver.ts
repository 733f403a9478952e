import { CredentialCache } from '../access/credential-cache.js';
import type { Credential, CredentialResolver } from '../access/credential.js';
import type { Generations } from '../cache/generations.js';
import { unauthorized } from '../errors.js';

/**
 * A resolver for tests: Basic passwords map to fixed credentials (user name ignored).
 * Lets format tests exercise the access rules before (or without) the auth package.
 */
export function staticResolver(byPassword: Record<string, Credential | (() => Credential)>): CredentialResolver {
  return {
    async resolve(req) {
      const h = req.authorization;
      if (!h) return { type: 'anonymous' };
      const m = /^Basic\s+(.+)$/i.exec(h);
      const decoded = m ? Buffer.from(m[1]!, 'base64').toString('utf8') : '';
      const password = decoded.slice(decoded.indexOf(':') + 1);
      const c = byPassword[password];
      if (!c) throw unauthorized('invalid credentials', req.surface === 'format');
      return typeof c === 'function' ? c() : c;
    },
  };
}

/**
 * `inner` behind core's CredentialCache on the format routes, as the auth module's resolver puts
 * it, with `cached` for the lean read path: repeated GETs with the same password are then
 * answered from memory in a format's tests as they are in production.
 */
export function rememberingResolver(generations: Generations, inner: CredentialResolver): CredentialResolver {
  const cache = new CredentialCache(generations);
  return {
    cached: (authorization) => cache.lookup(authorization, { stale: false }).hit,
    async resolve(req) {
      if (!req.authorization || req.surface !== 'format') return inner.resolve(req);
      const entry = cache.lookup(req.authorization);
      return entry.hit ?? entry.remember(await inner.resolve(req));
    },
  };
}

export const basic = (password: string, user = 'x') => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

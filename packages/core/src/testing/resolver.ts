import type { Credential, CredentialResolver } from '../access/credential.js';
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

export const basic = (password: string, user = 'x') => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

import type { Context, MiddlewareHandler } from 'hono';
import type { Credential } from '../access/credential.js';
import type { UserRow } from '../db/schema.js';
import { forbidden, unauthorized } from '../errors.js';
import type { TroveEnv } from './env.js';

type UserCredential = Extract<Credential, { type: 'user' }>;

/** A signed-in user (password, read token or UI session). API 401s carry no Basic challenge, so browsers show no popup. */
export function requireUser(c: Context<TroveEnv>): UserCredential {
  const cred = c.get('credential');
  if (cred.type === 'user') return cred;
  if (cred.type === 'publish') throw forbidden('publish session tokens only work on format routes and /api/publish');
  throw unauthorized('sign in required', false);
}

export function requireAdmin(c: Context<TroveEnv>): UserRow {
  const cred = requireUser(c);
  if (!cred.user.isAdmin) throw forbidden('admin only');
  return cred.user;
}

/** Read tokens never write: an API write with one is refused even where reads are allowed. */
export function requireWriterUser(c: Context<TroveEnv>): UserCredential {
  const cred = requireUser(c);
  if (cred.via === 'read_token') throw forbidden('read tokens cannot change anything', 'read_only_token');
  return cred;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What the credential provider (auth) tells these rules about its own URLs. */
export interface CredentialPaths {
  setupOnlyPaths: RegExp[];
  publishPaths: RegExp[];
  /**
   * `METHOD /api/path` routes a password over HTTP Basic may still change: their body carries a
   * fresh second factor of its own (SPEC: "session" includes HTTP Basic with a password there).
   */
  freshProofRoutes: string[];
}

/**
 * SPEC "Credentials": a password (and a read token) over HTTP Basic is for reads only. Every
 * other change needs a UI session, which needed the second factor; the provider's fresh-proof
 * routes are the exception. This is the one place a Basic credential is judged on `/api/`.
 */
function basicOnlyReads(cred: UserCredential, method: string, path: string, freshProofRoutes: string[]): void {
  if (READS.has(method) || freshProofRoutes.includes(`${method} ${path}`)) return;
  if (cred.via === 'read_token') throw forbidden('read tokens cannot change anything', 'read_only_token');
  throw forbidden('a password over HTTP Basic only reads; changes need a signed-in UI session');
}

/**
 * Rules for every `/api/` request (SPEC "Authentication"): a publish token gets 403 outside
 * the provider's publish paths; a setup-only session reaches only the provider's setup-only
 * paths (the credential provider, i.e. auth, names its own URLs); a Basic password or read
 * token only reads.
 */
export function apiCredentialRules(provider: () => CredentialPaths): MiddlewareHandler<TroveEnv> {
  return async function apiCredentialRulesMiddleware(c, next) {
    const cred = c.get('credential');
    const path = c.req.path;
    if (cred.type === 'publish' && !provider().publishPaths.some((r) => r.test(path))) {
      throw forbidden('publish session tokens only work on format routes and /api/publish');
    }
    if (cred.type === 'user' && cred.setupOnly && !provider().setupOnlyPaths.some((r) => r.test(path))) {
      throw forbidden('set up a second factor first (/api/security)', 'second_factor_required');
    }
    if (cred.type === 'user' && cred.via !== 'session') basicOnlyReads(cred, c.req.method, path, provider().freshProofRoutes);
    await next();
  };
}

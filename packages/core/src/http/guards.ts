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
  if (cred.via === 'read_token') throw forbidden('read tokens cannot change anything');
  return cred;
}

// Sign-in routes stay open too: a browser holding a setup-only cookie must be able to sign in again.
const SETUP_ONLY_ALLOWED = [/^\/api\/me$/, /^\/api\/security(\/|$)/, /^\/api\/auth\/(logout|config|login|login\/second|login\/passkey|oidc\/login|oidc\/callback)$/];

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * State-changing routes a password over HTTP Basic may still reach: their body carries a fresh
 * second factor of its own (SPEC: "session" includes HTTP Basic with a password there).
 */
const FRESH_PROOF_ROUTES = new Set(['POST /api/devices/approve', 'POST /api/publish/sessions/manual']);

/**
 * SPEC "Credentials": a password (and a read token) over HTTP Basic is for reads only. Every
 * other change needs a UI session, which needed the second factor; the fresh-proof routes are
 * the exception. This is the one place a Basic credential is judged on `/api/`: the SSO work
 * (`admin_password_login` off: a local admin's password stops reaching admin routes) adds
 * its refusal here as another `basicCredentialRules` entry.
 */
export type BasicCredentialRule = (cred: UserCredential, req: { method: string; path: string }) => void;

export const basicCredentialRules: BasicCredentialRule[] = [
  function passwordOnlyReads(cred, { method, path }) {
    if (READS.has(method) || FRESH_PROOF_ROUTES.has(`${method} ${path}`)) return;
    if (cred.via === 'read_token') throw forbidden('read tokens cannot change anything');
    throw forbidden('a password over HTTP Basic only reads; changes need a signed-in UI session');
  },
];

/**
 * Rules for every `/api/` request (SPEC "Authentication"):
 * a publish token gets 403 outside `/api/publish/`; a setup-only session reaches only
 * `/api/me`, `/api/security/*`, sign-in and logout; a Basic password or read token only reads.
 */
export function apiCredentialRules(): MiddlewareHandler<TroveEnv> {
  return async function apiCredentialRulesMiddleware(c, next) {
    const cred = c.get('credential');
    const path = c.req.path;
    if (cred.type === 'publish' && !path.startsWith('/api/publish/')) {
      throw forbidden('publish session tokens only work on format routes and /api/publish');
    }
    if (cred.type === 'user' && cred.setupOnly && !SETUP_ONLY_ALLOWED.some((r) => r.test(path))) {
      throw forbidden('set up a second factor first (/api/security)');
    }
    if (cred.type === 'user' && cred.via !== 'session') {
      for (const rule of basicCredentialRules) rule(cred, { method: c.req.method, path });
    }
    await next();
  };
}

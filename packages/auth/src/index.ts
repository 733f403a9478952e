import { fileURLToPath } from 'node:url';
import { defineModule, type CoreContext, type CredentialProvider, type CredentialResolver, type MigrationSet, type SettingsGroup, type TroveEnv } from '@trove/core';
import type { Hono } from 'hono';
import { bootstrapAdmin } from './accounts/bootstrap.js';
import { loginRoutes } from './accounts/login-routes.js';
import { userRoutes } from './accounts/user-routes.js';
import { auditRoutes } from './audit/routes.js';
import { cachedResolver } from './credentials/cached.js';
import { credentialResolver } from './credentials/resolver.js';
import { createPublishing, publishMigrations } from './publish/index.js';
import { failedAttemptLimiter } from './rate-limit/token-buckets.js';
import { SecondFactors } from './second-factor/index.js';
import { securityRoutes } from './second-factor/routes.js';
import { secondFactorResetRoutes } from './second-factor/admin-reset.js';
import { PendingLogins } from './sessions/pending-logins.js';
import { UiSessionStore } from './sessions/ui-sessions.js';
import { publishSettings, sessionSettings, ssoSettings } from './settings.js';
import { createSso, ssoMigrations } from './sso/index.js';
import { ReadTokenStore } from './tokens/read-tokens.js';
import { tokenRoutes } from './tokens/routes.js';

export { hashPassword, verifyPassword } from './accounts/passwords.js';
export { publishMigrations } from './publish/index.js';
export { ssoMigrations } from './sso/index.js';

/** UI sessions, second factors and read tokens (`drizzle/accounts`), tracked in their own migrations table. */
export const accountsMigrations: MigrationSet = {
  name: 'accounts',
  folder: fileURLToPath(new URL('../drizzle/accounts', import.meta.url)),
};

export const authSettingsGroups: SettingsGroup[] = [sessionSettings, publishSettings, ssoSettings];
export const authMigrations: MigrationSet[] = [accountsMigrations, publishMigrations, ssoMigrations];

export interface AuthModule {
  resolver: CredentialResolver;
  /** Mounted at `/api`. */
  routes: Hono<TroveEnv>[];
  bootstrapAdmin(given: { username: string; password: string } | null, print?: (line: string) => void): Promise<void>;
  start(): void;
  stop(): void;
}

/** How often expired UI sessions are deleted. */
const PURGE_EVERY_MS = 3_600_000;

/**
 * Accounts (passwords, UI sessions, second factors, read tokens, audit route) and
 * publishing, sharing one failed-attempt limiter. SSO (OIDC sign-in, `src/sso`) creates
 * its sessions through the same `UiSessionStore`.
 */
export function createAuth(ctx: CoreContext): AuthModule {
  const failures = failedAttemptLimiter();
  const factors = new SecondFactors(ctx, failures);
  const proof = factors.freshProofVerifier();
  const sessions = new UiSessionStore(ctx);
  const pending = new PendingLogins();
  const tokens = new ReadTokenStore(ctx);
  const publishing = createPublishing(ctx, { proof, failures });
  const sso = createSso(ctx, { sessions });
  let timer: NodeJS.Timeout | undefined;
  const purge = () => {
    try {
      sessions.purge();
    } catch (err) {
      ctx.log.error({ err }, 'session purge failed');
    }
  };
  return {
    resolver: cachedResolver(ctx, credentialResolver(ctx, { publish: publishing.verifier, failures, sessions, tokens, hasSecondFactor: (id) => factors.hasSecondFactor(id) }), tokens),
    routes: [
      loginRoutes({ ctx, factors, sessions, pending, failures }),
      userRoutes(ctx, proof, sessions, failures, { onDisabled: (user) => publishing.endSessionsOf(user.id) }),
      securityRoutes(ctx, factors, sessions),
      secondFactorResetRoutes(ctx, factors, sessions),
      tokenRoutes(ctx, tokens),
      auditRoutes(ctx),
      publishing.routes,
      sso.routes,
    ],
    bootstrapAdmin: (given, print) => bootstrapAdmin(ctx, given, print),
    start() {
      publishing.start();
      if (timer) return;
      purge();
      timer = setInterval(purge, PURGE_EVERY_MS);
      timer.unref();
    },
    stop() {
      publishing.stop();
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}

/**
 * The `/api` paths this package serves that core's credential rules must know: a setup-only
 * session reaches its account, second-factor setup, sign-in and sign-out (so a browser holding
 * a setup-only cookie can sign in again); publish tokens reach the publishing API.
 */
export const SETUP_ONLY_PATHS = [/^\/api\/me$/, /^\/api\/security(\/|$)/, /^\/api\/auth\/(logout|config|login|login\/second|login\/passkey|oidc\/login|oidc\/callback)$/];
export const PUBLISH_PATHS = [/^\/api\/publish\//];
/** The two changes a Basic password may make: each body carries a fresh second factor (SPEC: "session"). */
export const FRESH_PROOF_ROUTES = ['POST /api/devices/approve', 'POST /api/publish/sessions/manual'];

export interface AuthModuleOptions {
  /** The first admin from the bootstrap variables; null: a generated password printed once. */
  bootstrapAdmin?: { username: string; password: string } | null;
  print?: (line: string) => void;
}

/** Accounts and publishing as a module: the credential provider, its `/api` routes and its timers. */
export function authModule(opts: AuthModuleOptions = {}) {
  return defineModule({
    name: 'auth',
    settings: authSettingsGroups,
    migrations: authMigrations,
    create(ctx) {
      const auth = createAuth(ctx);
      const credentials: CredentialProvider = { resolver: auth.resolver, setupOnlyPaths: SETUP_ONLY_PATHS, publishPaths: PUBLISH_PATHS, freshProofRoutes: FRESH_PROOF_ROUTES };
      return {
        auth,
        credentials,
        apiRoutes: auth.routes,
        async start() {
          await auth.bootstrapAdmin(opts.bootstrapAdmin ?? null, opts.print);
          auth.start();
        },
        stop: () => auth.stop(),
      };
    },
  });
}

import { fileURLToPath } from 'node:url';
import type { CoreContext, MigrationSet, TroveEnv } from '@trove/core';
import type { Hono } from 'hono';
import { TokenBuckets } from '../rate-limit/token-buckets.js';
import type { UiSessionStore } from '../sessions/ui-sessions.js';
import { DiscoveryCache, type DiscoveryOptions } from './discovery.js';
import { SsoFlow } from './flow.js';
import { ssoRoutes } from './routes.js';
import { SsoUsers } from './users.js';

export { adminPasswordAllowed, ssoConfig, type SsoConfig } from './config.js';

/** The SSO identity table (`drizzle/sso`), tracked in its own migrations table. Apply after core's. */
export const ssoMigrations: MigrationSet = {
  name: 'sso',
  folder: fileURLToPath(new URL('../../drizzle/sso', import.meta.url)),
};

export interface SsoModule {
  /** Mounted at `/api`: `/auth/oidc/login`, `/auth/oidc/callback`, `/settings/oidc/test`. */
  routes: Hono<TroveEnv>;
}

/**
 * OpenID Connect sign-in for admins (SPEC "Authentication" rules 4-5). It owns its discovery
 * cache and the sign-ins in progress; sessions come from the accounts half's `UiSessionStore`.
 * Settings live in `ssoSettings` (../settings.ts); the settings check is a PatchHook.
 */
export function createSso(ctx: CoreContext, deps: { sessions: UiSessionStore; discovery?: DiscoveryOptions }): SsoModule {
  const discovery = new DiscoveryCache({ ...deps.discovery, warn: (msg, detail) => ctx.log.warn(detail, msg) });
  return {
    routes: ssoRoutes({
      ctx,
      flow: new SsoFlow(),
      discovery,
      users: new SsoUsers(ctx),
      sessions: deps.sessions,
      // 20 at once per IP, then one every 3 s: an office behind one address signing in at nine still gets through.
      starts: new TokenBuckets({ burst: 20, intervalMs: 3000 }),
    }),
  };
}

import type { CoreContext, CredentialResolver, MigrationSet, SettingsGroup, TroveEnv } from '@trove/core';
import { unauthorized } from '@trove/core';
import type { Hono } from 'hono';
import { bootstrapAdmin } from './accounts/bootstrap.js';
import { userRoutes } from './accounts/user-routes.js';
import type { FreshProofVerifier } from './contracts.js';
import { credentialResolver } from './credentials/resolver.js';
import { createPublishing, publishMigrations } from './publish/index.js';
import { failedAttemptLimiter } from './rate-limit/token-buckets.js';
import { publishSettings, sessionSettings, ssoSettings } from './settings.js';

export { hashPassword, verifyPassword } from './accounts/passwords.js';
export { publishMigrations } from './publish/index.js';

export const authSettingsGroups: SettingsGroup[] = [sessionSettings, publishSettings, ssoSettings];
export const authMigrations: MigrationSet[] = [publishMigrations];

export interface AuthModule {
  resolver: CredentialResolver;
  /** Mounted at `/api`. */
  routes: Hono<TroveEnv>[];
  bootstrapAdmin(given: { username: string; password: string } | null, print?: (line: string) => void): Promise<void>;
  start(): void;
  stop(): void;
}

/**
 * Second factors (TOTP, passkeys, recovery codes) come with the accounts issue. Until
 * then no account has one, so the fresh-proof check refuses every attempt and, per the
 * SPEC, local accounts cannot publish by device or by hand; CI publishing works.
 */
const noSecondFactors: FreshProofVerifier = {
  async verify() {
    throw unauthorized('set up a second factor before publishing', false);
  },
  hasSecondFactor: () => false,
};

export function createAuth(ctx: CoreContext): AuthModule {
  const failures = failedAttemptLimiter();
  const publishing = createPublishing(ctx, { proof: noSecondFactors, failures });
  return {
    resolver: credentialResolver(ctx, { publish: publishing.verifier, failures }),
    routes: [userRoutes(ctx, noSecondFactors), publishing.routes],
    bootstrapAdmin: (given, print) => bootstrapAdmin(ctx, given, print),
    start: () => publishing.start(),
    stop: () => publishing.stop(),
  };
}

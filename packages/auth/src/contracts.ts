import type { PublishGrant, UserRow } from '@trove/core';
import type { Hono } from 'hono';
import type { TroveEnv } from '@trove/core';
import type { TokenBuckets } from './rate-limit/token-buckets.js';

/**
 * The seams between the accounts half of this package (sign-in, second factors,
 * tokens: `src/accounts`, `src/second-factor`) and the publishing half (`src/publish`).
 */

/** A fresh second-factor check before a device approval or a manual publish session. */
export interface FreshProofVerifier {
  /**
   * Accepts `{totp_code}` or `{passkey}` (an assertion answering options from
   * `POST /api/security/passkeys/assert`); recovery codes are refused. Counts failures
   * in the failed-attempt limiter. Throws 401 for a wrong proof, 429 when limited.
   */
  verify(user: UserRow, proof: { totp_code?: unknown; passkey?: unknown }, ip: string): Promise<'totp' | 'passkey'>;
  /** Local accounts need a second factor before they can publish. */
  hasSecondFactor(userId: string): boolean;
}

/** Resolves a `trs_` token (the whole string) to its grant; null when unknown, closed or expired. */
export interface PublishTokenVerifier {
  verify(token: string): Promise<PublishGrant | null>;
}

export interface PublishingDeps {
  proof: FreshProofVerifier;
  /** Shared failed-attempt limiter (bad publish tokens count). */
  failures: TokenBuckets;
}

export interface PublishingModule {
  /** Mounted at `/api`: devices, publish challenge/sessions/log/trusts. */
  routes: Hono<TroveEnv>;
  verifier: PublishTokenVerifier;
  /** Ends a user's open publish sessions for good (the user was disabled). */
  endSessionsOf(userId: string): void;
  /** Background jobs (publish log purge). */
  start(): void;
  stop(): void;
}

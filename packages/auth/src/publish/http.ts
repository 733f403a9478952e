import type { Context } from 'hono';
import { badRequest, forbidden, readJsonObject, requireUser, unauthorized, type CoreContext, type TroveEnv, type UserRow } from '@trove/core';
import type { FreshProofVerifier } from '../contracts.js';

type UserCredential = ReturnType<typeof requireUser>;

export const body = (ctx: CoreContext, c: Context<TroveEnv>) => readJsonObject(c, ctx.settings.int('max_json_bytes'));

export const ipOf = (c: Context<TroveEnv>) => c.get('clientIp') ?? '0.0.0.0';

/** Failed-attempt limiter key for the caller's address (same key scheme as the accounts half). */
export const ipKey = (c: Context<TroveEnv>) => `ip:${ipOf(c)}`;

/**
 * SPEC legend "session": a UI session or HTTP Basic with a password. Read tokens are
 * refused (they never change anything, and these routes concern publishing rights);
 * publish tokens already got 403 from core's apiCredentialRules or `requireUser`.
 */
export function requireSessionUser(c: Context<TroveEnv>): UserCredential {
  const cred = requireUser(c);
  if (cred.via === 'read_token') throw forbidden('read tokens cannot be used here; sign in');
  return cred;
}

/**
 * A user who may publish by hand or by device: a local account (SSO users cannot,
 * SPEC "Authentication" rule 4) with a second factor.
 */
export function requirePublisher(user: UserRow, proof: FreshProofVerifier): void {
  if (user.kind !== 'local') throw forbidden('SSO users cannot publish by device or by hand; CI publishes with a trust policy');
  if (!proof.hasSecondFactor(user.id)) throw forbidden('set up a second factor before publishing (/api/security)');
}

/**
 * Runs the fresh second-factor check (TOTP or passkey). A recovery code is never a fresh
 * proof: it is refused with 401 without being looked at.
 */
export async function freshProof(proof: FreshProofVerifier, user: UserRow, b: Record<string, unknown>, ip: string): Promise<'totp' | 'passkey'> {
  const hasTotp = b.totp_code !== undefined && b.totp_code !== null;
  const hasPasskey = b.passkey !== undefined && b.passkey !== null;
  if (!hasTotp && !hasPasskey) {
    if (b.recovery_code !== undefined) throw unauthorized('a recovery code cannot approve publishing; use a TOTP code or a passkey', false);
    throw badRequest('totp_code or passkey is required');
  }
  return proof.verify(user, hasTotp ? { totp_code: b.totp_code } : { passkey: b.passkey }, ip);
}

export function reqString(b: Record<string, unknown>, field: string, max = 4096): string {
  const v = b[field];
  if (typeof v !== 'string' || v === '' || v.length > max) throw badRequest(`${field} is required`);
  return v;
}

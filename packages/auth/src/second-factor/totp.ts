import { and, eq, lt } from 'drizzle-orm';
import { timingSafeEqual } from 'node:crypto';
import { authenticator } from 'otplib';
import type { CoreContext, UserRow } from '@trove/core';
import { badRequest, notFound } from '@trove/core';
import { newId } from '../publish/crypto.js';
import { totpFactors, totpUsedSteps, type TotpRow } from '../accounts/schema.js';

/** SPEC "TOTP setup": a begun setup can be confirmed for 10 minutes. */
export const TOTP_SETUP_MS = 10 * 60_000;
const STEP_S = 30;
/** Codes of one step either side of now are accepted (clock drift, typing time). */
const WINDOW = 1;
const ISSUER = 'Trove';

interface Setup {
  userId: string;
  name: string;
  secret: string;
  expiresAt: number;
}

/**
 * A code as the client sent it: a string, or a JSON number for clients that send the 6 digits as
 * one (`012345` arrives as `12345`, so it is zero-padded). Anything else is no code (undefined).
 */
export function totpCode(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= 999_999) return String(v).padStart(6, '0');
  return undefined;
}

export const totpJson = (t: TotpRow) => ({ id: t.id, name: t.name, created_at: t.createdAt.toISOString() });

/**
 * TOTP authenticators (RFC 6238 via otplib: SHA-1, 6 digits, 30 s). Seeds are sealed
 * at rest with the master key. Every accepted code's time step is recorded per user, so
 * a code works once: a replay within its window is refused.
 */
export class TotpFactors {
  private readonly setups = new Map<string, Setup>();
  constructor(private readonly ctx: CoreContext) {}

  begin(user: UserRow, name: string): { setup_id: string; secret: string; otpauth_url: string } {
    const now = Date.now();
    for (const [k, s] of this.setups) if (s.expiresAt <= now) this.setups.delete(k);
    const secret = authenticator.generateSecret(20);
    const id = newId();
    this.setups.set(id, { userId: user.id, name, secret, expiresAt: now + TOTP_SETUP_MS });
    return { setup_id: id, secret, otpauth_url: authenticator.keyuri(user.username, ISSUER, secret) };
  }

  /** Confirms a setup with a current code; the code's step is spent so it cannot sign in afterwards. */
  confirm(user: UserRow, setupId: string, code: string): TotpRow {
    const s = this.setups.get(setupId);
    if (!s || s.userId !== user.id || s.expiresAt <= Date.now()) throw notFound('TOTP setup not found or expired; begin again');
    const step = this.match(s.secret, code);
    if (step === null) throw badRequest('the code does not match; check the authenticator\'s clock and try the current code');
    if (!this.spend(user.id, step)) throw badRequest('this code was already used; wait for the next one');
    this.setups.delete(setupId);
    const id = newId();
    return this.ctx.db
      .insert(totpFactors)
      .values({ id, userId: user.id, name: s.name, secretSealed: this.ctx.secrets.seal(`totp:${id}`, s.secret), createdAt: new Date() })
      .returning()
      .get();
  }

  list(userId: string): TotpRow[] {
    return this.ctx.db.select().from(totpFactors).where(eq(totpFactors.userId, userId)).orderBy(totpFactors.createdAt).all();
  }

  remove(userId: string, id: string): boolean {
    return this.ctx.db.delete(totpFactors).where(and(eq(totpFactors.id, id), eq(totpFactors.userId, userId))).run().changes > 0;
  }

  /** Removes all of the user's (an admin's reset); how many there were. */
  removeAll(userId: string): number {
    return this.ctx.db.delete(totpFactors).where(eq(totpFactors.userId, userId)).run().changes;
  }

  /** True when the code matches one of the user's authenticators and was not used before. */
  verify(userId: string, given: unknown): boolean {
    const code = totpCode(given);
    if (code === undefined) return false;
    for (const f of this.list(userId)) {
      let secret: string;
      try {
        secret = this.ctx.secrets.open(`totp:${f.id}`, f.secretSealed);
      } catch {
        this.ctx.log.error({ totp: f.id }, 'a TOTP seed does not decrypt with this master key');
        continue;
      }
      const step = this.match(secret, code);
      if (step !== null) return this.spend(userId, step);
    }
    return false;
  }

  private match(secret: string, code: string): number | null {
    const clean = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(clean)) return null;
    const now = Date.now();
    const current = Math.floor(now / 1000 / STEP_S);
    // Every step of the window is generated and compared in constant time (otplib's own check
    // compares with ===), and all are compared, so the time taken says nothing about which matched.
    const given = Buffer.from(clean);
    let matched: number | null = null;
    for (let delta = -WINDOW; delta <= WINDOW; delta++) {
      const expected = Buffer.from(authenticator.clone({ epoch: (current + delta) * STEP_S * 1000 }).generate(secret));
      if (expected.length === given.length && timingSafeEqual(expected, given) && matched === null) matched = current + delta;
    }
    return matched;
  }

  /** Records the step as used; false when it already was (a replay). */
  private spend(userId: string, step: number): boolean {
    const now = Date.now();
    const oldest = Math.floor(now / 1000 / STEP_S) - WINDOW - 1;
    this.ctx.db.delete(totpUsedSteps).where(and(eq(totpUsedSteps.userId, userId), lt(totpUsedSteps.step, oldest))).run();
    const r = this.ctx.db.insert(totpUsedSteps).values({ userId, step, usedAt: new Date(now) }).onConflictDoNothing().run();
    return r.changes > 0;
  }
}

import { and, count, eq, isNull } from 'drizzle-orm';
import { randomInt } from 'node:crypto';
import type { CoreContext } from '@trove/core';
import { sha256hex } from '../publish/crypto.js';
import { recoveryCodes } from '../accounts/schema.js';

/** SPEC "Recovery codes": 10 per set. */
export const RECOVERY_CODES_PER_SET = 10;
/** 32 symbols without look-alikes (no 0/o, 1/l). 16 of them carry 80 bits. */
const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

const normalize = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * One-time recovery codes. 80 random bits each, so SHA-256 is enough at rest (no KDF);
 * a new set replaces the old one; afterwards only the number of unused codes is readable.
 */
export class RecoveryCodes {
  constructor(private readonly ctx: CoreContext) {}

  replace(userId: string): string[] {
    const codes = Array.from({ length: RECOVERY_CODES_PER_SET }, () => {
      let s = '';
      for (let i = 0; i < 16; i++) s += ALPHABET[randomInt(ALPHABET.length)];
      return s.match(/.{4}/g)!.join('-');
    });
    const now = new Date();
    this.ctx.db.transaction((tx) => {
      tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
      tx.insert(recoveryCodes).values(codes.map((c) => ({ userId, codeHash: sha256hex(normalize(c)), createdAt: now }))).run();
    });
    return codes;
  }

  /** Deletes the user's whole set (used or not); the number of rows removed. */
  discard(userId: string): number {
    return this.ctx.db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run().changes;
  }

  unused(userId: string): number {
    return (
      this.ctx.db
        .select({ n: count() })
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)))
        .get()?.n ?? 0
    );
  }

  /** Spends a code; false when it is unknown or already used. One UPDATE, so a code cannot be spent twice. */
  consume(userId: string, code: unknown): boolean {
    if (typeof code !== 'string') return false;
    const hash = sha256hex(normalize(code));
    const r = this.ctx.db
      .update(recoveryCodes)
      .set({ usedAt: new Date() })
      .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, hash), isNull(recoveryCodes.usedAt)))
      .run();
    return r.changes > 0;
  }
}

import { randomBytes } from 'node:crypto';
import type { UserRow } from '@trove/core';
import { sha256hex } from '../publish/crypto.js';

/** A password was right; the second factor is still to come (SPEC "Sign-in": pending sign-in). */
export interface PendingLogin {
  userId: string;
  credentialsVersion: number;
  expiresAt: number;
  /** WebAuthn challenge issued by `POST /api/auth/login/passkey`, single use. */
  challenge?: string;
}

/** How long a pending sign-in waits for its second factor. */
export const PENDING_LOGIN_MS = 5 * 60_000;
const MAX_PENDING = 10_000;

/**
 * Pending sign-ins (`tr_login` cookie), in memory: they live five minutes, and a restart
 * only means typing the password again. Keyed by SHA-256 of the cookie value.
 */
export class PendingLogins {
  private readonly byHash = new Map<string, PendingLogin>();

  create(user: UserRow): string {
    this.sweep();
    if (this.byHash.size >= MAX_PENDING) this.byHash.delete(this.byHash.keys().next().value!);
    const token = randomBytes(32).toString('base64url');
    this.byHash.set(sha256hex(token), { userId: user.id, credentialsVersion: user.credentialsVersion, expiresAt: Date.now() + PENDING_LOGIN_MS });
    return token;
  }

  get(token: string | undefined): PendingLogin | null {
    if (!token) return null;
    const p = this.byHash.get(sha256hex(token));
    if (!p) return null;
    if (p.expiresAt <= Date.now()) {
      this.byHash.delete(sha256hex(token));
      return null;
    }
    return p;
  }

  end(token: string): void {
    this.byHash.delete(sha256hex(token));
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, p] of this.byHash) if (p.expiresAt <= now) this.byHash.delete(k);
  }
}

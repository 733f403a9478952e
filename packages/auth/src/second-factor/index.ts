import { unauthorized, type CoreContext, type UserRow } from '@trove/core';
import type { FreshProofVerifier } from '../contracts.js';
import type { TokenBuckets } from '../rate-limit/token-buckets.js';
import { Passkeys } from './passkeys.js';
import { RecoveryCodes } from './recovery-codes.js';
import { TotpFactors } from './totp.js';

export type LoginMethod = 'totp' | 'passkey' | 'recovery_code';

/** Failed-attempt limiter keys for a user at an address. */
export const attemptKeys = (ip: string, username: string) => [`ip:${ip}`, `user:${username.toLowerCase()}`];

/**
 * A user's second factors: TOTP authenticators, passkeys and recovery codes. A user
 * "has a second factor" with at least one TOTP authenticator or passkey; recovery codes
 * are a way back in, not a factor of their own.
 */
export class SecondFactors {
  readonly totp: TotpFactors;
  readonly passkeys: Passkeys;
  readonly recovery: RecoveryCodes;

  constructor(
    private readonly ctx: CoreContext,
    private readonly failures: TokenBuckets,
  ) {
    this.totp = new TotpFactors(ctx);
    this.passkeys = new Passkeys(ctx);
    this.recovery = new RecoveryCodes(ctx);
  }

  /** Removes every TOTP authenticator, passkey and recovery code of the user, in one transaction; how many of each. */
  removeAll(userId: string): { totp: number; passkeys: number; recovery_codes: number } {
    return this.ctx.db.transaction(() => ({
      totp: this.totp.removeAll(userId),
      passkeys: this.passkeys.removeAll(userId),
      recovery_codes: this.recovery.discard(userId),
    }));
  }

  hasSecondFactor(userId: string): boolean {
    return this.totp.list(userId).length > 0 || this.passkeys.list(userId).length > 0;
  }

  methods(userId: string): LoginMethod[] {
    const m: LoginMethod[] = [];
    if (this.totp.list(userId).length) m.push('totp');
    if (this.passkeys.list(userId).length) m.push('passkey');
    if (this.recovery.unused(userId) > 0) m.push('recovery_code');
    return m;
  }

  /**
   * One second-factor check as a failed-attempt limiter attempt (SPEC: wrong codes count):
   * the attempt is taken before `check` runs, so parallel guesses cannot all pass the limit
   * while a passkey verification awaits. `check` returns the method that matched or null; a
   * wrong factor is audited and answered 401 (429 once the limit is reached).
   */
  attempt<M extends string>(user: UserRow, ip: string, action: string, check: () => Promise<M | null>, message = 'wrong second factor'): Promise<M> {
    return this.failures.limit(attemptKeys(ip, user.username), async () => {
      const method = await check();
      if (method) return method;
      this.ctx.audit.record({ action, actor: user.username, ip, target: user.username });
      throw unauthorized(message, false);
    });
  }

  check(user: UserRow, ip: string): void {
    this.failures.check(attemptKeys(ip, user.username));
  }

  /** The fresh check before a device approval or a manual publish session (contracts.ts). */
  freshProofVerifier(): FreshProofVerifier {
    return {
      verify: (user, proof, ip) =>
        this.attempt(user, ip, 'second_factor.failed', async (): Promise<'totp' | 'passkey' | null> => {
          if (proof.totp_code !== undefined && proof.totp_code !== null) return this.totp.verify(user.id, proof.totp_code) ? 'totp' : null;
          if (proof.passkey !== undefined && proof.passkey !== null && this.passkeys.list(user.id).length) {
            if (await this.passkeys.verifyFresh(user, proof.passkey)) return 'passkey';
          }
          return null;
        }),
      hasSecondFactor: (userId) => this.hasSecondFactor(userId),
    };
  }
}

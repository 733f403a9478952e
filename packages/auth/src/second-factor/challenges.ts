/** WebAuthn challenges live five minutes, one per key, and are taken once. */
const CHALLENGE_MS = 5 * 60_000;
const MAX = 10_000;

export class ChallengeStore {
  private readonly byKey = new Map<string, { challenge: string; expiresAt: number }>();

  put(key: string, challenge: string): void {
    this.byKey.delete(key);
    if (this.byKey.size >= MAX) this.byKey.delete(this.byKey.keys().next().value!);
    this.byKey.set(key, { challenge, expiresAt: Date.now() + CHALLENGE_MS });
  }

  take(key: string): string | null {
    const e = this.byKey.get(key);
    this.byKey.delete(key);
    return e && e.expiresAt > Date.now() ? e.challenge : null;
  }
}

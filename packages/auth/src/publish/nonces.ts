import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** SPEC "Nonce": single use, 60 seconds. */
export const NONCE_TTL_MS = 60_000;

/**
 * Challenge nonces for device sessions. A nonce is self-describing and MACed:
 * `expiry (8 bytes) || random (16) || HMAC-SHA256(process key, device id, expiry, random)[:16]`,
 * base64url. Issuing one stores nothing, so anyone who knows a device id can ask for as
 * many as they like without evicting the real client's nonce or growing memory. Single use
 * is enforced by remembering spent nonces until they expire; a nonce is spent by any attempt
 * to use it (one signature try per nonce), and attempts are bounded by the failed-attempt
 * limiter. The key lives in memory: a restart only makes clients ask again.
 */
export class NonceStore {
  private readonly key = randomBytes(32);
  private readonly spent = new Map<string, number>();

  private mac(deviceId: string, head: Buffer): Buffer {
    return createHmac('sha256', this.key).update(`trove publish nonce\n${deviceId}\n`).update(head).digest().subarray(0, 16);
  }

  issue(deviceId: string, now = Date.now()): string {
    const head = Buffer.alloc(24);
    head.writeBigUInt64BE(BigInt(now + NONCE_TTL_MS), 0);
    randomBytes(16).copy(head, 8);
    return Buffer.concat([head, this.mac(deviceId, head)]).toString('base64url');
  }

  /** True once for a nonce issued to this device within the last 60 seconds. */
  take(deviceId: string, nonce: string, now = Date.now()): boolean {
    if (!/^[A-Za-z0-9_-]{54}$/.test(nonce)) return false;
    const raw = Buffer.from(nonce, 'base64url');
    if (raw.length !== 40) return false;
    const head = raw.subarray(0, 24);
    if (!timingSafeEqual(raw.subarray(24), this.mac(deviceId, head))) return false;
    const expires = Number(head.readBigUInt64BE(0));
    if (expires <= now || this.spent.has(nonce)) return false;
    if (this.spent.size >= 10_000) this.sweep(now);
    this.spent.set(nonce, expires);
    return true;
  }

  sweep(now = Date.now()): void {
    for (const [n, exp] of this.spent) if (exp <= now) this.spent.delete(n);
  }
}

import { newSecret } from './crypto.js';

/** SPEC "Nonce": single use, 60 seconds. */
export const NONCE_TTL_MS = 60_000;
/** Outstanding nonces kept per device; the oldest is dropped first, so memory stays bounded. */
const PER_DEVICE = 16;

/**
 * Challenge nonces for device sessions, in memory: they live a minute, Trove is one
 * process, and a restart only makes a client ask for a new one. Taking a nonce removes
 * it whether or not the signature that follows is valid, so each nonce gets one try.
 */
export class NonceStore {
  private readonly byDevice = new Map<string, Map<string, number>>();

  issue(deviceId: string, now = Date.now()): string {
    const nonce = newSecret();
    let m = this.byDevice.get(deviceId);
    if (!m) this.byDevice.set(deviceId, (m = new Map()));
    m.set(nonce, now + NONCE_TTL_MS);
    if (m.size > PER_DEVICE) m.delete(m.keys().next().value!);
    return nonce;
  }

  /** True once for a nonce issued to this device within the last 60 seconds. */
  take(deviceId: string, nonce: string, now = Date.now()): boolean {
    const m = this.byDevice.get(deviceId);
    const exp = m?.get(nonce);
    if (!m || exp === undefined) return false;
    m.delete(nonce);
    if (m.size === 0) this.byDevice.delete(deviceId);
    return exp > now;
  }

  forget(deviceId: string): void {
    this.byDevice.delete(deviceId);
  }

  sweep(now = Date.now()): void {
    for (const [id, m] of this.byDevice) {
      for (const [n, exp] of m) if (exp <= now) m.delete(n);
      if (m.size === 0) this.byDevice.delete(id);
    }
  }
}

import { hash } from 'node:crypto';
import { GenerationCache, type Generations } from '../cache/generations.js';
import type { Credential } from './credential.js';

/** How long a resolved credential is trusted at most, even when nothing changed (a password is checked again after this). */
export const CREDENTIAL_CACHE_MS = 60_000;

interface Entry {
  credential: Credential;
  /** Epoch ms after which the entry is no longer trusted: the token's or session's own expiry, or CREDENTIAL_CACHE_MS. */
  until: number;
  /** The credential's own expiry (Infinity for a password): never served past it, not even while renewing. */
  expiresAt: number;
  /** A check of this header is under way (only one at a time). */
  renewing?: boolean;
  onHit?: () => void;
}

export interface Lookup {
  /** The credential the header resolved to, while it holds. */
  hit?: Credential;
  /**
   * Set on the first lookup after a renewable entry's age limit: `hit` is still served, and the
   * caller should check the header again in the background and `remember` (or `forget`) the result.
   */
  renew?: boolean;
  remember(credential: Credential, opts?: RememberOptions): Credential;
  forget(): void;
}

export interface RememberOptions {
  /** When the credential stops being valid by itself (a read token's or publish session's expiry). */
  expiresAt?: number;
  /** Runs on every later hit (e.g. a read token's once-a-minute "last used" write). */
  onHit?: () => void;
}

/**
 * Authorization headers already resolved to a credential, so Maven, Gradle and apt, which send
 * the same header on every request, pay for the password, token or session check once
 * (bench W2). Keyed by SHA-256 of the header: no password or token is kept. Only successful
 * resolutions are remembered; a failure always takes the full path (and its rate limit).
 *
 * An entry holds while the `access` generation stands still: every write to users, permissions,
 * repositories, read tokens and publish sessions moves it, in this process or another on the same
 * database, so a deleted token, a disabled user, a lost permission or a closed session applies on
 * the very next request. It also ends at the credential's own expiry. After CREDENTIAL_CACHE_MS
 * (a password's check) the entry is checked again: `lookup` keeps answering from it while one
 * caller re-runs the check in the background, so a Maven build does not stall on scrypt once a
 * minute (nothing it depends on changed, or the generation would have ended it); a failed check
 * removes it. At most `maxEntries` entries; the oldest go first.
 */
export class CredentialCache {
  private readonly entries: GenerationCache<Entry>;

  constructor(
    generations: Generations,
    private readonly opts: { maxEntries?: number; maxAgeMs?: number; now?: () => number } = {},
  ) {
    this.entries = new GenerationCache<Entry>(generations, 'access', opts.maxEntries ?? 10_000);
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /** The cache key of a header: its SHA-256, so the cache itself keeps no password or token. */
  static digest(authorization: string): string {
    return keyOf(authorization);
  }

  /**
   * The lean read path's lookup, by a digest from `digest()`: the credential while its entry is
   * fresh, else undefined (a stale entry is left for `lookup`, which renews it). No allocation.
   */
  fresh(digest: string): Credential | undefined {
    const e = this.entries.get(digest);
    if (!e || e.until <= this.now()) return undefined;
    e.onHit?.();
    return e.credential;
  }

  /**
   * `hit`: the credential `authorization` resolved to, while it still holds. Otherwise resolve it
   * and pass a success to `remember`, which drops it if anything it depends on was written
   * meanwhile (a password check takes a third of a second).
   */
  lookup(authorization: string, opts: { stale?: boolean } = { stale: true }): Lookup {
    const key = keyOf(authorization);
    const e = this.entries.get(key);
    const now = this.now();
    const stamp = this.entries.stamp();
    const remember = (credential: Credential, o: RememberOptions = {}) => {
      const maxAge = this.now() + (this.opts.maxAgeMs ?? CREDENTIAL_CACHE_MS);
      const expiresAt = o.expiresAt ?? Infinity;
      this.entries.set(key, { credential, until: Math.min(maxAge, expiresAt), expiresAt, onHit: o.onHit }, stamp);
      return credential;
    };
    const forget = () => this.entries.delete(key);
    if (e && e.until > now) {
      e.onHit?.();
      return { hit: e.credential, remember, forget };
    }
    // Past the cache's age limit but not its credential's own expiry, and not much later: serve it while it is checked again.
    const renewable = !!e && now < e.expiresAt && now - e.until < (this.opts.maxAgeMs ?? CREDENTIAL_CACHE_MS);
    if (e && renewable) {
      if (opts.stale === false) return { remember, forget }; // a miss for this caller; the entry stays for `resolve` to renew
      e.onHit?.();
      const renew = !e.renewing;
      e.renewing = true;
      return { hit: e.credential, renew, remember, forget };
    }
    if (e) this.entries.delete(key);
    return { remember, forget };
  }
}

const keyOf = (authorization: string) => hash('sha256', authorization, 'base64');

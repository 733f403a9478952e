import { hash } from 'node:crypto';
import { GenerationCache, type Generations } from '../cache/generations.js';
import type { Credential } from './credential.js';

/** How long a resolved credential is trusted at most, even when nothing changed (a password is checked again after this). */
export const CREDENTIAL_CACHE_MS = 60_000;

interface Entry {
  credential: Credential;
  /** Epoch ms after which the entry is no longer trusted: the token's or session's own expiry, or CREDENTIAL_CACHE_MS. */
  until: number;
  onHit?: () => void;
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
 * the very next request. It also ends at the credential's own expiry, and after
 * CREDENTIAL_CACHE_MS in any case. At most `maxEntries` entries; the oldest go first.
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

  /**
   * `hit`: the credential `authorization` resolved to, while it still holds. Otherwise resolve it
   * and pass a success to `remember`, which drops it if anything it depends on was written
   * meanwhile (a password check takes a third of a second).
   */
  lookup(authorization: string): { hit?: Credential; remember(credential: Credential, opts?: RememberOptions): Credential } {
    const key = keyOf(authorization);
    const e = this.entries.get(key);
    if (e && e.until > this.now()) {
      e.onHit?.();
      return { hit: e.credential, remember: (c) => c };
    }
    if (e) this.entries.delete(key);
    const stamp = this.entries.stamp();
    return {
      remember: (credential, opts = {}) => {
        const until = Math.min(this.now() + (this.opts.maxAgeMs ?? CREDENTIAL_CACHE_MS), opts.expiresAt ?? Infinity);
        this.entries.set(key, { credential, until, onHit: opts.onHit }, stamp);
        return credential;
      },
    };
  }
}

const keyOf = (authorization: string) => hash('sha256', authorization, 'base64');

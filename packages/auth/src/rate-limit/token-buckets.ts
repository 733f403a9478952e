import { createHash } from 'node:crypto';
import { rateLimited } from '@trove/core';

/** Longer keys are kept as their SHA-256: a key comes from the request (a user name, an address). */
const MAX_KEY_CHARS = 128;
const stored = (key: string) => (key.length <= MAX_KEY_CHARS ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`);

export interface TokenBucketOptions {
  /** Tokens a fresh key starts with. */
  burst: number;
  /** One token comes back every `intervalMs`. */
  intervalMs: number;
  /** Keys kept at most; the least recently touched are dropped first (a dropped key is simply full again). */
  maxKeys?: number;
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * In-memory token buckets keyed by strings (`ip:1.2.3.4`, `user:alice`). Memory is
 * bounded by `maxKeys` and by the size of a key (a long one is kept as its hash); a Map
 * keeps insertion order, so re-inserting on touch gives LRU.
 * Process-local on purpose: Trove is one process, and a restart only forgives attempts.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;
  constructor(private readonly opts: TokenBucketOptions) {
    this.now = opts.now ?? Date.now;
  }

  private read(key: string): Bucket {
    const t = this.now();
    const b = this.buckets.get(stored(key));
    if (!b) return { tokens: this.opts.burst, at: t };
    const refill = Math.floor((t - b.at) / this.opts.intervalMs);
    if (refill <= 0) return b;
    const tokens = Math.min(this.opts.burst, b.tokens + refill);
    return { tokens, at: tokens === this.opts.burst ? t : b.at + refill * this.opts.intervalMs };
  }

  private write(given: string, b: Bucket): void {
    const key = stored(given);
    this.buckets.delete(key);
    if (b.tokens >= this.opts.burst) return; // a full bucket is the default: no need to remember it
    this.buckets.set(key, b);
    const max = this.opts.maxKeys ?? 100_000;
    if (this.buckets.size > max) this.buckets.delete(this.buckets.keys().next().value!);
  }

  /** Seconds until `key` has a token again; 0 when it has one now. */
  retryAfter(key: string): number {
    const b = this.read(key);
    if (b.tokens >= 1) return 0;
    return Math.max(1, Math.ceil((b.at + this.opts.intervalMs - this.now()) / 1000));
  }

  /** Takes a token; false (and nothing taken) when the bucket is empty. */
  take(key: string): boolean {
    const b = this.read(key);
    if (b.tokens < 1) return false;
    this.write(key, { tokens: b.tokens - 1, at: b.at });
    return true;
  }

  /** Gives one token back (a refunded attempt), never above the burst. */
  private give(key: string): void {
    const b = this.read(key);
    this.write(key, { tokens: Math.min(this.opts.burst, b.tokens + 1), at: b.at });
  }

  /**
   * Runs an expensive credential check (scrypt, a signature, a remote key set) as one attempt.
   * The token is taken BEFORE the check, so N parallel guesses get at most the burst through
   * and the rest 429 at once; checking first and counting afterwards let every request in
   * flight pass. A failed attempt (a 401) keeps its token; success or any other answer gives it back.
   */
  async limit<T>(keys: string[], check: () => Promise<T> | T): Promise<T> {
    this.consume(keys);
    try {
      const result = await check();
      for (const k of keys) this.give(k);
      return result;
    } catch (err) {
      if ((err as { status?: number }).status !== 401) for (const k of keys) this.give(k);
      throw err;
    }
  }

  /** Throws 429 with Retry-After when any key is empty. */
  check(keys: string[]): void {
    const wait = Math.max(0, ...keys.map((k) => this.retryAfter(k)));
    if (wait > 0) throw rateLimited(wait);
  }

  /** Records one failure against every key (a key already empty stays empty). */
  fail(keys: string[]): void {
    for (const k of keys) this.take(k);
  }

  /** Consumes one token per key or throws 429: for endpoints limited on every call (device enrollment). */
  consume(keys: string[]): void {
    this.check(keys);
    for (const k of keys) this.take(k);
  }
}

/** SPEC "Failed-attempt rate limit": per IP and per user name, burst 10, then 1 every 6 seconds. */
export const failedAttemptLimiter = (now?: () => number) => new TokenBuckets({ burst: 10, intervalMs: 6000, now });

/** SPEC "Device enrollment rate": per IP, burst 10, then 1 per 30 seconds. */
export const enrollmentLimiter = (now?: () => number) => new TokenBuckets({ burst: 10, intervalMs: 30_000, now });

import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export const sha256hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** 128-bit random identifiers in hex (no `_`, so `trs_<id>_<secret>` splits unambiguously). */
export const newId = () => randomBytes(16).toString('hex');

/** 256-bit random secret, base64url. */
export const newSecret = () => randomBytes(32).toString('base64url');

/**
 * Publish tokens: `trs_<id>_<secret>`. The id finds the row by primary key; the secret's
 * SHA-256 is compared in constant time. A plain hash suffices (no KDF) because the secret
 * carries 256 random bits, and verification runs on every artifact request.
 */
export function newSessionToken(): { id: string; token: string; secretHash: string } {
  const id = newId();
  const secret = newSecret();
  return { id, token: `trs_${id}_${secret}`, secretHash: sha256hex(secret) };
}

export function parseSessionToken(token: string): { id: string; secret: string } | null {
  const m = /^trs_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : null;
}

/**
 * RFC 8628 section 6.1: user codes from 19 consonants (no vowels, so no words; no
 * 0/O or 1/I/L look-alikes), 8 characters shown as `ABCD-EFGH`: about 34 bits,
 * which a code living 10 minutes and approvable only by a signed-in user with a fresh
 * second factor does not need to exceed.
 */
const USER_CODE_ALPHABET = 'BCDFGHJKMNPQRSTVWXZ';
export function newUserCode(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

/** Users may type lower case, spaces or no dash: compare on the bare alphabet characters. */
export function normalizeUserCode(input: string): string {
  const bare = input.toUpperCase().replace(/[^A-Z]/g, '');
  return bare.length === 8 ? `${bare.slice(0, 4)}-${bare.slice(4)}` : bare;
}

/** Decodes strict base64url without padding; null for anything else. */
export function fromBase64url(s: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return null;
  const buf = Buffer.from(s, 'base64url');
  // Round-trip so non-canonical encodings (stray bits in the last character) are refused.
  return buf.toString('base64url') === s ? new Uint8Array(buf) : null;
}

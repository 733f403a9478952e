import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { TroveError } from '@trove/core';

/**
 * scrypt with OWASP's recommended parameters (N=2^17, r=8, p=1: about 128 MiB and
 * ~0.3 s per hash here). Stored as `scrypt$N$r$p$salt$hash` so parameters can rise later
 * without breaking existing hashes.
 */
const N = 2 ** 17;
const R = 8;
const P = 1;
const KEYLEN = 32;
const maxmem = 256 * 1024 * 1024;

/**
 * Each hash holds 128 MiB for ~0.3 s, so a flood of sign-ins (many addresses, many names: the
 * per-IP and per-name limits do not bound it) could exhaust memory. At most RUNNING hashes run
 * at once and QUEUED wait; beyond that a check answers 503 with Retry-After at once, before any
 * memory is taken. Cached password checks (resolver) never get here.
 */
const RUNNING = 4;
const QUEUED = 16;
let running = 0;
const waiting: (() => void)[] = [];

export const hashingBusy = () =>
  new TroveError(503, 'unavailable', 'too many password checks in progress, try again shortly', {}, { 'Retry-After': '1' });

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= RUNNING) {
    if (waiting.length >= QUEUED) throw hashingBusy();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await work();
  } finally {
    // Hand the slot straight to the next waiter (running stays the same), or free it.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return withHashSlot(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password.normalize('NFKC'), salt, KEYLEN, { N: n, r, p, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
      ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

export function checkPasswordStrength(password: unknown): string | undefined {
  if (typeof password !== 'string') return 'password must be a string';
  if (password.length < 8) return 'password must be at least 8 characters';
  if (password.length > 1024) return 'password must be at most 1024 characters';
  return undefined;
}

let dummyHash: Promise<string> | undefined;

/**
 * Checks a sign-in password with the same cost whether or not the account can sign in
 * with one (unknown, disabled or SSO user), so response times do not reveal which names exist.
 */
export async function verifyUserPassword(password: string, stored: string | null | undefined, eligible: boolean): Promise<boolean> {
  if (eligible && stored) return verifyPassword(password, stored);
  dummyHash ??= hashPassword(randomBytes(16).toString('base64url'));
  await verifyPassword(password, await dummyHash);
  return false;
}

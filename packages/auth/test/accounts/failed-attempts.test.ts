import { afterEach, describe, expect, it } from 'vitest';
import { api, startAccounts, type Accounts } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** SPEC "Failed-attempt rate limit": burst 10. */
const BURST = 10;

// Each counted guess runs scrypt (~0.3 s alone, seconds on a loaded CI machine).
describe('failed attempts', { timeout: 120_000 }, () => {
  it('answers 400 to a sign-in with a user name no account can have, before the limiter and the lookup', async () => {
    h = await startAccounts();
    const password = await h.user('alice');
    const impossible = ['x'.repeat(65), 'white space', '-dash-first', `${'big'.repeat(100_000)}`];
    for (let i = 0; i < BURST + 2; i++) {
      const r = await api(h, '/api/auth/login', { body: { username: impossible[i % impossible.length], password: 'whatever-1' } });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/user name/);
    }
    // None of them was a failed attempt of this address.
    expect((await api(h, '/api/auth/login', { body: { username: 'alice', password } })).status).toBe(200);
  });

  it('counts a wrong current password like a failed sign-in: 429 with Retry-After past the limit, even for the right one', async () => {
    h = await startAccounts();
    const { client, password } = await h.withTotp('alice');
    const change = (current: string) => client.call('/api/users/alice', { method: 'PATCH', body: { current_password: current, password: 'new-password-123' } });
    const statuses: number[] = [];
    // On a loaded machine a token may come back (one per 6 s) while scrypt runs: fail until limited, within a bound.
    for (let i = 0; i < 20 && !statuses.includes(429); i++) statuses.push((await change(`wrong-guess-${i}`)).status);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(BURST);
    expect(statuses.at(-1)).toBe(429);
    const right = await change(password);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    // Same keys as the sign-in: the user name is limited there too.
    expect((await api(h, '/api/auth/login', { body: { username: 'alice', password } })).status).toBe(429);
  });
});

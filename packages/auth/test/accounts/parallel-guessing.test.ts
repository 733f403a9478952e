import { afterEach, describe, expect, it } from 'vitest';
import { api, basic, startAccounts, type Accounts, type Answer } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** SPEC "Failed-attempt rate limit": burst 10. */
const BURST = 10;

function tally(answers: { status: number; headers: Headers }[]) {
  const by = (s: number) => answers.filter((a) => a.status === s);
  return { unauthorized: by(401).length, limited: by(429), other: answers.filter((a) => a.status !== 401 && a.status !== 429).map((a) => a.status) };
}

const raw = async (url: string, headers: Record<string, string>): Promise<Answer> => {
  const r = await fetch(url, { headers });
  return { status: r.status, body: await r.text(), headers: r.headers };
};

// Each guess runs scrypt (~0.3 s alone, seconds on a loaded CI machine): generous timeouts.
describe('the failed-attempt limit under parallel guessing', { timeout: 120_000 }, () => {
  it('lets at most the burst of 25 parallel wrong Basic passwords on /api/ reach the check; the rest get 429 with Retry-After', async () => {
    h = await startAccounts();
    await h.user('alice');
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => api(h!, '/api/me', { auth: basic('alice', `wrong-guess-${i}`) })));
    const t = tally(answers);
    expect(t.other).toEqual([]);
    expect(t.unauthorized).toBeLessThanOrEqual(BURST);
    expect(t.limited.length).toBeGreaterThanOrEqual(25 - BURST);
    for (const a of t.limited) expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('holds for Basic on format routes', async () => {
    h = await startAccounts();
    await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
    await h.user('alice');
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) => raw(`${h!.url}/raw/files/a.txt`, { authorization: basic('alice', `wrong-guess-${i}`) })),
    );
    const t = tally(answers);
    expect(t.other).toEqual([]);
    expect(t.unauthorized).toBeLessThanOrEqual(BURST);
    expect(t.limited.length).toBeGreaterThanOrEqual(25 - BURST);
  });

  it('holds for POST /api/auth/login', async () => {
    h = await startAccounts();
    await h.user('alice');
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => api(h!, '/api/auth/login', { body: { username: 'alice', password: `wrong-guess-${i}` } })));
    const t = tally(answers);
    expect(t.other).toEqual([]);
    expect(t.unauthorized).toBeLessThanOrEqual(BURST);
    expect(t.limited.length).toBeGreaterThanOrEqual(25 - BURST);
  });

  it('holds for publish tokens', async () => {
    h = await startAccounts();
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) => api(h!, '/api/publish/sessions', { auth: basic('ci', `trs_nope${i}_${'x'.repeat(43)}`) })),
    );
    const t = tally(answers);
    expect(t.other).toEqual([]);
    expect(t.unauthorized).toBeLessThanOrEqual(BURST);
    expect(t.limited.length).toBeGreaterThanOrEqual(25 - BURST);
  });

  it('bounds concurrent password hashing: a flood from many addresses gets 503 with Retry-After instead of queueing without end', async () => {
    h = await startAccounts({ env: { TR_TRUSTED_PROXIES: '127.0.0.1/32' } });
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api(h!, '/api/auth/login', { body: { username: `nobody${i}`, password: 'wrong-password' }, headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } }),
      ),
    );
    const busy = answers.filter((a) => a.status === 503);
    expect(answers.filter((a) => a.status !== 503 && a.status !== 401)).toEqual([]);
    expect(busy.length).toBeGreaterThan(0);
    for (const a of busy) {
      expect(a.headers.get('retry-after')).toBe('1');
      expect(typeof a.body.error).toBe('string');
    }
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('keeps parallel reads with the right password fast: one check, every request answered', async () => {
    h = await startAccounts();
    await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
    const password = await h.user('alice');
    await h.asRoot('/api/repos/files/permissions/alice', { method: 'PUT', body: { level: 'read' } });
    await h.ctx.assets.commitBytes({ repo: h.ctx.repos.byName('files')!, path: 'a.txt', bytes: 'hello', contentType: 'text/plain', onExisting: 'deny', uploader: 'x' });
    const answers = await Promise.all(Array.from({ length: 32 }, () => raw(`${h!.url}/raw/files/a.txt`, { authorization: basic('alice', password) })));
    expect(answers.map((a) => a.status)).toEqual(Array(32).fill(200));
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, deviceSession, enrolledDevice, GOOD_TOTP, rawPut, startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
});

const manual = (repo = 'files', auth = 'alice@session', extra: Record<string, unknown> = { totp_code: GOOD_TOTP }) =>
  call(h, '/api/publish/sessions/manual', { auth, body: { repo, ...extra } });

describe('device proof', () => {
  it('opens a session whose token writes to its repo through a real raw PUT and records the uploader', async () => {
    h = await startHarness();
    const dev = await enrolledDevice(h);
    const r = await deviceSession(h, dev, 'files');
    expect(r.status).toBe(201);
    // `format` lets a client that holds only the token (the CLI's upload) pick the upload route.
    expect(Object.keys(r.body).sort()).toEqual(['expires_at', 'format', 'id', 'repo', 'token']);
    expect(r.body.format).toBe('raw');
    expect(r.body.token).toMatch(new RegExp(`^trs_${r.body.id}_`));
    expect((await rawPut(h, 'files', 'dir/a.txt', 'hello', r.body.token)).status).toBe(201);
    const asset = h.ctx.assets.get(h.ctx.repos.byName('files')!, 'dir/a.txt');
    expect(asset?.uploader).toBe('alice');
    // The token also reads its own repository, and nothing else.
    const get = await fetch(`${h.s.url}/raw/files/dir/a.txt`, { headers: { authorization: 'Basic ' + Buffer.from(`x:${r.body.token}`).toString('base64') } });
    expect(await get.text()).toBe('hello');
    expect((await rawPut(h, 'other', 'a.txt', 'x', r.body.token)).status).toBe(401);
    expect((await call(h, '/api/repos', { auth: r.body.token })).status).toBe(403);
    expect((await call(h, '/api/devices', { auth: r.body.token })).status).toBe(403);
    expect((await call(h, '/api/publish/log', { auth: r.body.token })).status).toBe(403);
  });

  it('signs exactly "service publish v1\\n<nonce>\\n<device_id>\\n<repo>"; refuses a wrong signature, a reused or expired nonce', async () => {
    h = await startHarness();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const dev = await enrolledDevice(h);
    const open = (body: Record<string, unknown>) => call(h, '/api/publish/sessions', { body: { device_id: dev.id, repo: 'files', ...body } });
    const challenge = async () => (await call(h, '/api/publish/challenge', { body: { device_id: dev.id } })).body.nonce as string;

    let nonce = await challenge();
    // Signed for another repo: refused, and the nonce is spent.
    let r = await open({ nonce, signature: await dev.key.sign(`service publish v1\n${nonce}\n${dev.id}\nother`) });
    expect(r.status).toBe(401);
    const good = await dev.key.sign(`service publish v1\n${nonce}\n${dev.id}\nfiles`);
    expect((await open({ nonce, signature: good })).status).toBe(401);

    nonce = await challenge();
    const sig = await dev.key.sign(`service publish v1\n${nonce}\n${dev.id}\nfiles`);
    expect((await open({ nonce, signature: sig + 'A' })).status).toBe(401); // not 64 bytes

    nonce = await challenge();
    r = await open({ nonce, signature: await dev.key.sign(`service publish v1\n${nonce}\n${dev.id}\nfiles`) });
    expect(r.status).toBe(201);
    expect((await open({ nonce, signature: await dev.key.sign(`service publish v1\n${nonce}\n${dev.id}\nfiles`) })).status).toBe(401);

    nonce = await challenge();
    vi.setSystemTime(Date.now() + 61_000);
    r = await open({ nonce, signature: await dev.key.sign(`service publish v1\n${nonce}\n${dev.id}\nfiles`) });
    expect(r.status).toBe(401);
    expect(r.body.error).toMatch(/nonce/);
  });

  it('binds a nonce to its device; many challenges do not evict a client\'s nonce; a tampered nonce fails', async () => {
    h = await startHarness();
    const a = await enrolledDevice(h, 'alice', 'a');
    const b = await enrolledDevice(h, 'alice', 'b');
    const nonceA = (await call(h, '/api/publish/challenge', { body: { device_id: a.id } })).body.nonce as string;
    for (let i = 0; i < 40; i++) await call(h, '/api/publish/challenge', { body: { device_id: a.id } });
    // b signs a's nonce: refused (and a's nonce is untouched, it was never valid for b).
    const sigB = await b.key.sign(`service publish v1\n${nonceA}\n${b.id}\nfiles`);
    expect((await call(h, '/api/publish/sessions', { body: { device_id: b.id, repo: 'files', nonce: nonceA, signature: sigB } })).status).toBe(401);
    const flipped = nonceA.slice(0, 10) + (nonceA[10] === 'A' ? 'B' : 'A') + nonceA.slice(11);
    const sigF = await a.key.sign(`service publish v1\n${flipped}\n${a.id}\nfiles`);
    expect((await call(h, '/api/publish/sessions', { body: { device_id: a.id, repo: 'files', nonce: flipped, signature: sigF } })).status).toBe(401);
    const sigA = await a.key.sign(`service publish v1\n${nonceA}\n${a.id}\nfiles`);
    expect((await call(h, '/api/publish/sessions', { body: { device_id: a.id, repo: 'files', nonce: nonceA, signature: sigA } })).status).toBe(201);
    expect((await call(h, '/api/publish/challenge', { body: { device_id: 'nope' } })).status).toBe(404);
  });

  it('answers a challenge with the device\'s own name, kind and expiry (what `trove status` shows)', async () => {
    h = await startHarness();
    const dev = await enrolledDevice(h, 'alice', 'build box');
    const listed = (await call(h, '/api/devices', { auth: 'alice@session' })).body.items[0];
    const ch = await call(h, '/api/publish/challenge', { body: { device_id: dev.id } });
    expect(ch.status).toBe(200);
    expect(ch.body).toEqual({ nonce: expect.any(String), device_id: dev.id, name: 'build box', kind: 'gradle', expires_at: listed.expires_at });
    await call(h, `/api/devices/${dev.id}`, { method: 'DELETE', auth: 'alice@session' });
    expect((await call(h, '/api/publish/challenge', { body: { device_id: dev.id } })).status).toBe(404);
  });

  it('needs the device user to hold write and a second factor; a lost permission stops writes at once (403)', async () => {
    h = await startHarness();
    const dev = await enrolledDevice(h);
    expect((await deviceSession(h, dev, 'other')).status).toBe(403); // alice only reads "other"
    const r = await deviceSession(h, dev, 'files');
    expect((await rawPut(h, 'files', 'a.txt', 'one', r.body.token)).status).toBe(201);
    h.ctx.permissions.set(h.ctx.repos.byName('files')!, 'alice', 'read');
    expect((await rawPut(h, 'files', 'b.txt', 'two', r.body.token)).status).toBe(403);
    h.ctx.permissions.set(h.ctx.repos.byName('files')!, 'alice', 'write');
    h.secondFactor.delete(h.user('alice').id);
    expect((await deviceSession(h, dev, 'files')).status).toBe(403);
  });

  it('a disabled user\'s sessions stop working at once', async () => {
    h = await startHarness();
    const dev = await enrolledDevice(h);
    const r = await deviceSession(h, dev, 'files');
    h.ctx.users.update(h.user('alice').id, { disabled: true });
    expect((await rawPut(h, 'files', 'a.txt', 'x', r.body.token)).status).toBe(401);
    expect((await deviceSession(h, dev, 'files')).status).toBe(401);
  });
});

describe('publish session state table', () => {
  it('closes with DELETE and its own token (Basic or Bearer): 204, then the token opens nothing', async () => {
    h = await startHarness();
    for (const scheme of ['Basic', 'Bearer']) {
      const s = await manual();
      expect(s.status).toBe(201);
      const auth = scheme === 'Bearer' ? `Bearer ${s.body.token}` : s.body.token;
      const other = await manual();
      expect((await call(h, `/api/publish/sessions/${s.body.id}`, { method: 'DELETE', auth: other.body.token })).status).toBe(403);
      expect((await call(h, `/api/publish/sessions/${s.body.id}`, { method: 'DELETE', auth: 'alice@session' })).status).toBe(403);
      expect((await call(h, `/api/publish/sessions/${s.body.id}`, { method: 'DELETE', auth })).status).toBe(204);
      expect((await rawPut(h, 'files', 'x.txt', 'x', s.body.token)).status).toBe(401);
      expect((await call(h, `/api/publish/sessions/${s.body.id}`, { method: 'DELETE', auth })).status).toBe(401);
    }
  });

  it('expires after publish.session_ttl (401), and the log keeps it 30 days after expiry', async () => {
    h = await startHarness({ env: { TR_PUBLISH_SESSION_TTL: '10m' } });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const s = await manual();
    const created = Date.now();
    expect(new Date(s.body.expires_at).getTime()).toBeLessThanOrEqual(created + 600_000);
    vi.setSystemTime(created + 599_000);
    expect((await rawPut(h, 'files', 'a.txt', 'a', s.body.token)).status).toBe(201);
    vi.setSystemTime(created + 601_000);
    expect((await rawPut(h, 'files', 'b.txt', 'b', s.body.token)).status).toBe(401);
    const own = await call(h, '/api/publish/sessions', { auth: 'alice@session' });
    expect(own.body.items[0]).toMatchObject({ id: s.body.id, state: 'expired', proof: 'manual', repo: 'files' });
    vi.setSystemTime(created + 600_000 + 29 * 86_400_000);
    h.publishing.start();
    h.publishing.stop();
    expect((await call(h, '/api/publish/log', { auth: 'root' })).body.items).toHaveLength(1);
    vi.setSystemTime(created + 600_000 + 31 * 86_400_000);
    h.publishing.start();
    h.publishing.stop();
    expect((await call(h, '/api/publish/log', { auth: 'root' })).body.items).toHaveLength(0);
  });

  it('counts bad, closed and expired tokens toward the failed-attempt limit (429 with Retry-After)', async () => {
    h = await startHarness();
    const s = await manual();
    await call(h, `/api/publish/sessions/${s.body.id}`, { method: 'DELETE', auth: s.body.token });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await rawPut(h, 'files', 'a.txt', 'a', i % 2 ? s.body.token : `trs_${'0'.repeat(32)}_${'A'.repeat(43)}`)).status);
    expect(statuses.slice(0, 10).every((x) => x === 401)).toBe(true);
    const r = await rawPut(h, 'files', 'a.txt', 'a', s.body.token);
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a write without a session gets 401 pointing at the publishing page; passwords cannot write', async () => {
    h = await startHarness({ env: { TR_BASE_URL: 'https://trove.example' } });
    for (const auth of [undefined, 'alice', 'root']) {
      const r = await rawPut(h, 'files', 'a.txt', 'a', auth);
      expect(r.status).toBe(401);
      expect(((await r.json()) as { error: string }).error).toBe('publishing needs a publish session: https://trove.example/#/publishing');
    }
  });
});

describe('manual proof', () => {
  it('opens a session for a signed-in writer with a fresh TOTP code', async () => {
    h = await startHarness();
    const s = await manual();
    expect(s.status).toBe(201);
    expect(s.body).toMatchObject({ repo: 'files', format: 'raw' });
    expect((await rawPut(h, 'files', 'm.txt', 'm', s.body.token)).status).toBe(201);
    expect((await manual('files', 'root@session')).status).toBe(201); // admins hold write everywhere
    expect((await manual('files', 'alice@session', { passkey: { ok: true } })).status).toBe(201);
  });

  it('refuses wrong proofs (401), recovery codes, non-writers, SSO users, read tokens, missing repos; 429 when limited', async () => {
    h = await startHarness();
    expect((await manual('files', 'alice@session', { recovery_code: 'aaaa-bbbb' })).status).toBe(401);
    expect((await manual('other')).status).toBe(403);
    expect((await manual('files', 'bob@session')).status).toBe(403);
    expect((await manual('files', 'sso@session')).status).toBe(403);
    expect((await manual('files', 'alice@read')).status).toBe(403);
    expect((await manual('nope')).status).toBe(404);
    expect((await manual('files', 'alice@session', {})).status).toBe(400);
    expect((await call(h, '/api/publish/sessions/manual', { body: { repo: 'files', totp_code: GOOD_TOTP } })).status).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await manual('files', 'alice@session', { totp_code: '999999' })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    const r = await manual();
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeTruthy();
  });
});

describe('publish log', () => {
  it('is admin only, newest first, paginated, and says who, which proof, repo, times and why closed', async () => {
    h = await startHarness();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const made: { id: string; token: string }[] = [];
    for (let i = 0; i < 4; i++) {
      vi.setSystemTime(Date.now() + 1000);
      made.push((await manual(i === 3 ? 'other' : 'files', i === 3 ? 'root' : 'alice@session')).body);
    }
    expect((await call(h, `/api/publish/sessions/${made[0]!.id}`, { method: 'DELETE', auth: made[0]!.token })).status).toBe(204);
    expect((await call(h, '/api/publish/log', { auth: 'alice' })).status).toBe(403);
    const p1 = await call(h, '/api/publish/log?limit=2', { auth: 'root' });
    expect(p1.status).toBe(200);
    expect(p1.body.items).toHaveLength(2);
    const p2 = await call(h, `/api/publish/log?limit=2&after=${p1.body.next}`, { auth: 'root' });
    const all = [...p1.body.items, ...p2.body.items];
    expect(all).toHaveLength(4);
    expect(all.map((e: any) => e.id)).toEqual(made.map((m) => m.id).reverse());
    expect(all[0]).toMatchObject({ user: 'root', actor: 'root', proof: 'manual', repo: 'other', state: 'open', closed_at: null });
    expect(all[1]).toMatchObject({ user: 'alice', proof: 'manual', repo: 'files', state: 'open' });
    // server-side filters: actor, proof (how the session was opened) and repository
    const only = async (q: string) => (await call(h, `/api/publish/log?${q}`, { auth: 'root' })).body.items.map((e: any) => e.id);
    expect(await only('repo=other')).toEqual([made[3]!.id]);
    expect(await only('actor=alice')).toEqual(made.slice(0, 3).map((m) => m.id).reverse());
    expect(await only('proof=manual&repo=files')).toEqual(made.slice(0, 3).map((m) => m.id).reverse());
    expect(await only('proof=oidc')).toEqual([]);
    expect((await call(h, '/api/publish/log?proof=password', { auth: 'root' })).status).toBe(400);
    expect(all[3]).toMatchObject({ state: 'closed', closed_reason: 'closed' });
    expect(typeof all[3].closed_at).toBe('string');
    // Own sessions: alice sees her three, not root's.
    expect((await call(h, '/api/publish/sessions', { auth: 'alice@session' })).body.items).toHaveLength(3);
    expect(all[1]).not.toHaveProperty('token');
    expect(JSON.stringify(all)).not.toMatch(/trs_|secret/);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, deviceKey, deviceSession, enrolledDevice, GOOD_TOTP, rawPut, startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
});

const enroll = async (key?: string) =>
  call(h, '/api/devices/enroll', { body: { name: 'laptop', kind: 'maven', public_key: key ?? (await deviceKey()).publicKey } });

describe('device enrollment (SPEC state table)', () => {
  it('returns RFC 8628 codes pointing at the publishing page', async () => {
    h = await startHarness({ env: { TR_BASE_URL: 'https://trove.example' } });
    const r = await enroll();
    expect(r.status).toBe(200);
    expect(r.body.user_code).toMatch(/^[BCDFGHJKMNPQRSTVWXZ]{4}-[BCDFGHJKMNPQRSTVWXZ]{4}$/);
    expect(r.body.device_code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.body).toMatchObject({ expires_in: 600, interval: 5 });
    expect(r.body.verification_url).toBe(`https://trove.example/#/publishing?code=${r.body.user_code}`);
  });

  it('validates name, kind and the Ed25519 public key', async () => {
    h = await startHarness();
    const key = (await deviceKey()).publicKey;
    for (const body of [
      { name: '', kind: 'gradle', public_key: key },
      { name: 'x', kind: 'npm', public_key: key },
      { name: 'x', kind: 'gradle', public_key: key + '=' },
      { name: 'x', kind: 'gradle', public_key: Buffer.alloc(31, 1).toString('base64url') },
      { name: 'x', kind: 'gradle' },
    ]) {
      expect((await call(h, '/api/devices/enroll', { body })).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('limits enrollment per IP: burst 10, then 429 with Retry-After', async () => {
    h = await startHarness();
    for (let i = 0; i < 10; i++) expect((await enroll()).status).toBe(200);
    const r = await enroll();
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('walks pending -> approved -> delivered once, with slow_down and 409 for a used code', async () => {
    h = await startHarness();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const en = await enroll();
    const poll = () => call(h, '/api/devices/enroll/poll', { body: { device_code: en.body.device_code } });
    let p = await poll();
    expect([p.status, p.body.error]).toEqual([400, 'authorization_pending']);
    p = await poll();
    expect([p.status, p.body.error]).toEqual([400, 'slow_down']);
    vi.setSystemTime(Date.now() + 5_000);
    expect((await poll()).body.error).toBe('authorization_pending');

    const seen = await call(h, `/api/devices/enroll?user_code=${en.body.user_code.toLowerCase()}`, { auth: 'alice@session' });
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ name: 'laptop', kind: 'maven', state: 'pending' });

    const ap = await call(h, '/api/devices/approve', { auth: 'alice@session', body: { user_code: en.body.user_code, totp_code: GOOD_TOTP } });
    expect(ap.status).toBe(201);
    expect(ap.body).toMatchObject({ name: 'laptop', kind: 'maven' });
    p = await poll();
    expect(p.status).toBe(200);
    // Beyond SPEC's {device_id}: the device's own record, so the client can show it (docs/decisions.md).
    expect(p.body).toEqual({ device_id: ap.body.id, name: 'laptop', kind: 'maven', expires_at: ap.body.expires_at });
    // One time only, and with one of SPEC's three poll outcomes: the code can no longer be exchanged.
    expect(await poll()).toMatchObject({ status: 400, body: { error: 'expired_token' } });
    const unknown = await call(h, '/api/devices/enroll/poll', { body: { device_code: 'no-such-code' } });
    expect(unknown).toMatchObject({ status: 400, body: { error: 'expired_token' } });
    const again = await call(h, '/api/devices/approve', { auth: 'alice@session', body: { user_code: en.body.user_code, totp_code: GOOD_TOTP } });
    expect(again.status).toBe(409);
    // Used, and then expired: 404 like any expired code (SPEC: "404 for unknown or expired code").
    vi.setSystemTime(Date.now() + 601_000);
    expect((await call(h, `/api/devices/enroll?user_code=${en.body.user_code}`, { auth: 'alice@session' })).status).toBe(404);
  });

  it('answers expired_token after 600 seconds and 404 to the approval page', async () => {
    h = await startHarness();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const en = await enroll();
    vi.setSystemTime(Date.now() + 601_000);
    const p = await call(h, '/api/devices/enroll/poll', { body: { device_code: en.body.device_code } });
    expect([p.status, p.body.error]).toEqual([400, 'expired_token']);
    expect((await call(h, `/api/devices/enroll?user_code=${en.body.user_code}`, { auth: 'alice@session' })).status).toBe(404);
    const ap = await call(h, '/api/devices/approve', { auth: 'alice@session', body: { user_code: en.body.user_code, totp_code: GOOD_TOTP } });
    expect(ap.status).toBe(404);
  });

  it('approval: 401 wrong second factor, 404 unknown code, refuses read and publish tokens and SSO users', async () => {
    h = await startHarness();
    const en = await enroll();
    const approve = (auth: string, extra: Record<string, unknown> = { totp_code: GOOD_TOTP }) =>
      call(h, '/api/devices/approve', { auth, body: { user_code: en.body.user_code, ...extra } });
    expect((await approve('alice@session', { totp_code: '000000' })).status).toBe(401);
    expect((await approve('alice@session', { recovery_code: 'abcd-efgh' })).status).toBe(401);
    expect((await call(h, '/api/devices/approve', { auth: 'alice@session', body: { user_code: 'BBBB-CCCC', totp_code: GOOD_TOTP } })).status).toBe(404);
    expect((await approve('alice@read')).status).toBe(403);
    expect((await approve('sso@session')).status).toBe(403);
    expect((await call(h, '/api/devices/approve', { body: { user_code: en.body.user_code, totp_code: GOOD_TOTP } })).status).toBe(401);
    h.secondFactor.delete(h.user('bob').id);
    expect((await approve('bob@session')).status).toBe(403);
    // A publish token is refused outside /api/publish.
    const dev = await enrolledDevice(h);
    const sess = await deviceSession(h, dev, 'files');
    expect((await approve(sess.body.token)).status).toBe(403);
    expect((await approve('alice')).status).toBe(201); // password Basic counts as a session
  });
});

describe('user code guessing', () => {
  it('counts unknown user codes as failed attempts: 429 after the burst', async () => {
    h = await startHarness();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await call(h, '/api/devices/enroll?user_code=BBBB-BBBB', { auth: 'alice@session' })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(404));
    expect(statuses[10]).toBe(429);
  });
});

describe('devices', () => {
  it('lists own devices newest first; an admin sees all; a stranger cannot revoke', async () => {
    h = await startHarness();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const a1 = await enrolledDevice(h, 'alice', 'one');
    vi.setSystemTime(Date.now() + 1000);
    const a2 = await enrolledDevice(h, 'alice', 'two');
    const b1 = await enrolledDevice(h, 'bob', 'bobs');
    const mine = await call(h, '/api/devices', { auth: 'alice@session' });
    expect(mine.body.items.map((d: any) => d.name)).toEqual(['two', 'one']);
    expect(mine.body.next).toBe('');
    const all = await call(h, '/api/devices?limit=2', { auth: 'root@session' });
    expect(all.body.items).toHaveLength(2);
    const rest = await call(h, `/api/devices?limit=2&after=${all.body.next}`, { auth: 'root@session' });
    expect([...all.body.items, ...rest.body.items].map((d: any) => d.id).sort()).toEqual([a1.id, a2.id, b1.id].sort());
    expect((await call(h, `/api/devices/${a1.id}`, { method: 'DELETE', auth: 'bob@session' })).status).toBe(404);
    expect((await call(h, `/api/devices/${b1.id}`, { method: 'DELETE', auth: 'root@session' })).status).toBe(204);
    expect((await call(h, '/api/devices', { auth: 'bob@session' })).body.items).toEqual([]);
  });

  it('revoking a device ends its open sessions and its key opens no new ones', async () => {
    h = await startHarness();
    const dev = await enrolledDevice(h);
    const sess = await deviceSession(h, dev, 'files');
    expect(sess.status).toBe(201);
    expect((await rawPut(h, 'files', 'a.txt', 'one', sess.body.token)).status).toBe(201);
    expect((await call(h, `/api/devices/${dev.id}`, { method: 'DELETE', auth: 'alice@session' })).status).toBe(204);
    expect((await rawPut(h, 'files', 'b.txt', 'two', sess.body.token)).status).toBe(401);
    expect((await deviceSession(h, dev, 'files')).status).toBe(404); // challenge refused
    const log = await call(h, '/api/publish/log', { auth: 'root' });
    expect(log.body.items[0]).toMatchObject({ state: 'closed', closed_reason: 'device revoked', proof: 'device', device: { name: 'laptop' } });
  });

  it('a device key expires after publish.device_ttl', async () => {
    h = await startHarness({ env: { TR_PUBLISH_DEVICE_TTL: '2h' } });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const dev = await enrolledDevice(h);
    const listed = await call(h, '/api/devices', { auth: 'alice' });
    expect(new Date(listed.body.items[0].expires_at).getTime() - new Date(listed.body.items[0].created_at).getTime()).toBe(7_200_000);
    vi.setSystemTime(Date.now() + 7_100_000);
    const late = await deviceSession(h, dev, 'files');
    expect(late.status).toBe(201);
    // A session never outlives its device key.
    expect(new Date(late.body.expires_at).getTime()).toBeLessThanOrEqual(new Date(listed.body.items[0].expires_at).getTime());
    vi.setSystemTime(Date.now() + 200_000);
    expect((await deviceSession(h, dev, 'files')).status).toBe(404);
  });
});

import { Hono, type Context } from 'hono';
import {
  badRequest,
  conflict,
  effectiveBaseUrl,
  forbidden,
  listQuery,
  notFound,
  page,
  type CoreContext,
  type TroveEnv,
  type UserRow,
} from '@trove/core';
import type { PublishingDeps } from '../contracts.js';
import type { TokenBuckets } from '../rate-limit/token-buckets.js';
import { DeviceStore, ENROLL_TTL_S, parseEnrollment, POLL_INTERVAL_S } from './devices.js';
import { body, freshProof, ipKey, ipOf, reqString, requirePublisher, requireSessionUser } from './http.js';
import type { DeviceRow } from './schema.js';
import { isCursor } from '../paging.js';
import { adminPasswordAllowed } from '../sso/config.js';
import type { SessionStore } from './sessions.js';

export interface DeviceRouteParts {
  ctx: CoreContext;
  deps: PublishingDeps;
  devices: DeviceStore;
  sessions: SessionStore;
  enrollLimiter: TokenBuckets;
}

/** Device records show identifier, name, kind and dates; never the enrollment codes. */
export function deviceJson(d: DeviceRow, store: DeviceStore, username?: string) {
  return {
    id: d.id,
    name: d.name,
    kind: d.kind,
    ...(username !== undefined ? { user: username } : {}),
    created_at: d.createdAt.toISOString(),
    expires_at: store.expiresAt(d).toISOString(),
    last_used_at: d.lastUsedAt?.toISOString() ?? null,
  };
}

/** `/api/devices...`: RFC 8628 enrollment, browser approval with a fresh second factor, listing and revocation. */
export function deviceRoutes({ ctx, deps, devices, sessions, enrollLimiter }: DeviceRouteParts): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();

  app.post('/devices/enroll', async (c) => {
    // Counted before validation: every call costs a token, valid or not.
    enrollLimiter.consume([ipKey(c)]);
    const input = parseEnrollment(await body(ctx, c));
    const codes = devices.enroll(input);
    const base = effectiveBaseUrl(ctx, c.req.url);
    return c.json({
      ...codes,
      verification_url: `${base}/#/publishing?code=${encodeURIComponent(codes.user_code)}`,
      expires_in: ENROLL_TTL_S,
      interval: POLL_INTERVAL_S,
    });
  });

  app.post('/devices/enroll/poll', async (c) => {
    const b = await body(ctx, c);
    return c.json(devices.poll(reqString(b, 'device_code', 200)));
  });

  /**
   * RFC 8628 section 5.1: user codes are short, so wrong guesses count in the failed-attempt
   * limiter (per IP and per user), like wrong passwords.
   */
  const lookup = (c: Context<TroveEnv>, user: UserRow, code: string) => {
    const keys = [ipKey(c), `user:${user.username}`];
    deps.failures.check(keys);
    try {
      return devices.pending(code);
    } catch (e) {
      deps.failures.fail(keys);
      throw e;
    }
  };

  /**
   * While `admin_password_login` is off, a local admin's credential here is the password (over Basic,
   * or the UI session it began) and counts without the admin flag. Approving a device with it is
   * refused (403) like the password sign-in: a device would otherwise outlive the password's
   * rights. Devices approved before the switch act without the flag while it is off
   * (`withoutPasswordAdmin` in the publish session routes and `SessionStore.verify`). Checked on
   * the stored row, the credential's copy has the flag stripped already.
   */
  const refuseLocalAdmin = (userId: string) => {
    const row = ctx.users.byId(userId);
    if (row?.isAdmin && row.kind === 'local' && !adminPasswordAllowed((k) => ctx.settings.get(k))) {
      throw forbidden('administrators sign in with SSO; a local administrator cannot approve devices while admin password sign-in is off');
    }
  };

  app.get('/devices/enroll', (c) => {
    const { user } = requireSessionUser(c);
    const code = c.req.query('user_code');
    if (!code) throw badRequest('user_code is required');
    const row = lookup(c, user, code);
    return c.json({
      user_code: code.toUpperCase(),
      name: row.name,
      kind: row.kind,
      public_key: row.publicKey,
      state: row.state === 'pending' ? 'pending' : 'approved',
      expires_at: row.expiresAt.toISOString(),
    });
  });

  app.post('/devices/approve', async (c) => {
    const { user } = requireSessionUser(c);
    requirePublisher(user, deps.proof);
    refuseLocalAdmin(user.id);
    const b = await body(ctx, c);
    const row = lookup(c, user, reqString(b, 'user_code', 64));
    if (row.state !== 'pending') throw conflict('this code was already used');
    await freshProof(deps.proof, user, b, ipOf(c));
    const device = devices.approve(row, user); // 409 if another approval won meanwhile
    ctx.log.info({ device: device.id, user: user.username }, 'device approved');
    return c.json(deviceJson(device, devices, user.username), 201);
  });

  app.get('/devices', (c) => {
    const { user } = requireSessionUser(c);
    const { after, limit } = listQuery(c, isCursor);
    const res = devices.page({ userId: user.isAdmin ? undefined : user.id, after, limit });
    const names = new Map<string, string>();
    const nameOf = (id: string) => {
      if (!names.has(id)) names.set(id, ctx.users.byId(id)?.username ?? '');
      return names.get(id)!;
    };
    return c.json(page(res.items.map((d) => deviceJson(d, devices, nameOf(d.userId))), res.last));
  });

  app.delete('/devices/:id', (c) => {
    const { user } = requireSessionUser(c);
    const d = devices.get(c.req.param('id'));
    // Someone else's device is "not found" to a non-admin: ids do not leak.
    if (!d || d.revokedAt || (d.userId !== user.id && !user.isAdmin)) throw notFound('device not found');
    devices.revoke(d.id);
    const closed = sessions.closeForDevice(d.id, 'device revoked');
    ctx.log.info({ device: d.id, by: user.username, closed }, 'device revoked');
    return c.body(null, 204);
  });

  return app;
}

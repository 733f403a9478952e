import { Hono } from 'hono';
import {
  badRequest,
  forbidden,
  isString,
  listQuery,
  page,
  readJsonObject,
  requireAdmin,
  requireUser,
  requireWriterUser,
  unauthorized,
  type CoreContext,
  type TroveEnv,
  type UserRow,
} from '@trove/core';
import type { FreshProofVerifier } from '../contracts.js';
import type { TokenBuckets } from '../rate-limit/token-buckets.js';
import { attemptKeys } from '../second-factor/index.js';
import { setSessionCookie } from '../sessions/cookies.js';
import type { UiSessionStore } from '../sessions/ui-sessions.js';
import { meJson } from './me.js';
import { checkPasswordStrength, hashPassword, verifyPassword } from './passwords.js';

/** `GET /api/me`, `GET/POST /api/users`, `PATCH /api/users/{username}`. */
export function userRoutes(
  ctx: CoreContext,
  proof: Pick<FreshProofVerifier, 'hasSecondFactor'>,
  sessions: UiSessionStore,
  failures: TokenBuckets,
  hooks: { onDisabled?: (user: UserRow) => void } = {},
) {
  const app = new Hono<TroveEnv>();
  const limit = () => ctx.settings.int('max_json_bytes');

  app.get('/me', (c) => c.json(meJson(requireUser(c).user, proof)));

  app.get('/users', (c) => {
    requireAdmin(c);
    const r = ctx.users.page({ ...listQuery(c, isString) });
    return c.json(page(r.items.map((u) => meJson(u, proof)), r.last));
  });

  app.post('/users', async (c) => {
    requireAdmin(c);
    const b = await readJsonObject(c, limit());
    if (typeof b.username !== 'string') throw badRequest('username is required');
    const weak = checkPasswordStrength(b.password);
    if (weak) throw badRequest(weak);
    if (b.email !== undefined && typeof b.email !== 'string') throw badRequest('email must be a string');
    if (b.is_admin !== undefined && typeof b.is_admin !== 'boolean') throw badRequest('is_admin must be a boolean');
    const user = ctx.users.create({
      username: b.username,
      email: (b.email as string | undefined) ?? '',
      isAdmin: (b.is_admin as boolean | undefined) ?? false,
      passwordHash: await hashPassword(b.password as string),
    });
    ctx.audit.recordFor(c, { action: 'user.create', target: user.username, detail: { is_admin: user.isAdmin, email: user.email } });
    return c.json(meJson(user, proof), 201);
  });

  app.patch('/users/:username', async (c) => {
    const cred = requireWriterUser(c);
    const target = ctx.users.require(c.req.param('username'));
    const b = await readJsonObject(c, limit());
    const self = cred.user.id === target.id;
    // A user may change only their own password.
    if (!cred.user.isAdmin && (!self || Object.keys(b).some((k) => k !== 'password' && k !== 'current_password'))) throw forbidden('admin only');
    if (b.password !== undefined && target.kind !== 'local') throw badRequest('SSO users have no password');
    // Changing one's own password proves the current one, admins included: a session left open must not be
    // enough to lock its owner out. (An admin setting someone else's password is the admin's reset.)
    if (self && b.password !== undefined) {
      // A wrong current password is a failed sign-in (SPEC Limits): same keys, counted before scrypt runs.
      const ip = c.get('clientIp') ?? '0.0.0.0';
      await failures.limit(attemptKeys(ip, target.username), async () => {
        if (typeof b.current_password === 'string' && (await verifyPassword(b.current_password, target.passwordHash))) return;
        ctx.audit.record({ action: 'auth.failed', actor: target.username, ip, target: target.username, detail: { credential: 'current password' } });
        throw unauthorized('current password is wrong', false);
      });
    }
    const set: Partial<Pick<UserRow, 'email' | 'isAdmin' | 'disabled' | 'passwordHash'>> = {};
    if (b.email !== undefined) {
      if (typeof b.email !== 'string') throw badRequest('email must be a string');
      set.email = b.email;
    }
    for (const [field, key] of [['is_admin', 'isAdmin'], ['disabled', 'disabled']] as const) {
      if (b[field] === undefined) continue;
      if (typeof b[field] !== 'boolean') throw badRequest(`${field} must be a boolean`);
      set[key] = b[field] as boolean;
    }
    if (self && (set.disabled === true || set.isAdmin === false)) throw badRequest('you cannot disable yourself or drop your own admin flag');
    if (b.password !== undefined) {
      const weak = checkPasswordStrength(b.password);
      if (weak) throw badRequest(weak);
      set.passwordHash = await hashPassword(b.password as string);
    }
    const signInEnd = self && cred.via === 'session' && cred.credentialId ? sessions.expiresAtOf(cred.credentialId) : undefined;
    const updated = ctx.users.update(target.id, set);
    // Their sessions already stopped matching (credentials version); drop the rows too.
    if (set.passwordHash || set.disabled) sessions.endStale(updated);
    // Publish sessions end for good: re-enabling the user does not bring them back.
    if (set.disabled) hooks.onDisabled?.(updated);
    // Field names only: never the password.
    ctx.audit.recordFor(c, { action: 'user.update', target: updated.username, detail: { fields: Object.keys(b).filter((k) => k !== 'current_password') } });
    // A password change ends every session of the user (credentials version); keep the
    // caller's own UI session alive by handing it a new one.
    if (self && set.passwordHash && cred.via === 'session') {
      // The new session ends when the old one would have: a sign-in's lifetime is never extended.
      const { token, session } = sessions.create(updated, !!cred.setupOnly, signInEnd);
      setSessionCookie(ctx, c, token, session.expiresAt);
    }
    return c.json(meJson(updated, proof));
  });

  return app;
}

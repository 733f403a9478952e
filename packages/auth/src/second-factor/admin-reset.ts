import { Hono } from 'hono';
import { badRequest, requireAdmin, type CoreContext, type TroveEnv } from '@trove/core';
import { meJson } from '../accounts/me.js';
import type { UiSessionStore } from '../sessions/ui-sessions.js';
import type { SecondFactors } from './index.js';

/**
 * `DELETE /api/users/{username}/second-factors`: an admin's answer to a lost phone or security key.
 * Every TOTP authenticator, passkey and recovery code of the user goes, and so do their UI sessions
 * (those were proven by the removed factors). The next sign-in is a setup-only session: the password,
 * then a new factor. Devices and publish sessions stay; they are keys the user holds, not factors.
 */
export function secondFactorResetRoutes(ctx: CoreContext, factors: SecondFactors, sessions: UiSessionStore): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();
  app.delete('/users/:username/second-factors', (c) => {
    const admin = requireAdmin(c);
    const user = ctx.users.require(c.req.param('username'));
    if (user.kind !== 'local') throw badRequest('SSO users have no second factor');
    // One's own factors are removed one by one on the Security page, each with the session that holds it.
    if (user.id === admin.id) throw badRequest('remove your own second factors on the Security page');
    const removed = factors.removeAll(user.id);
    sessions.endAllOf(user.id);
    ctx.audit.recordFor(c, { action: 'user.second_factor_reset', target: user.username, detail: removed });
    return c.json(meJson(user, factors));
  });
  return app;
}

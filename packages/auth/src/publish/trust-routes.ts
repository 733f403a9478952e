import { Hono } from 'hono';
import { isString, listQuery, pageInMemory, requireAdmin, requireWriterUser, type CoreContext, type TroveEnv } from '@trove/core';
import { body } from './http.js';
import type { SessionStore } from './sessions.js';
import { changesIdentity, parseTrust, toInput, trustJson, type TrustStore } from './trusts.js';

/** Admin routes for CI trust policies. Changing what a policy trusts ends its open sessions. */
export function trustRoutes(ctx: CoreContext, trusts: TrustStore, sessions: SessionStore): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();
  const admin = (c: Parameters<typeof requireAdmin>[0]) => {
    requireWriterUser(c);
    return requireAdmin(c);
  };

  app.get('/publish/trusts', (c) => {
    requireAdmin(c);
    // Name order (SPEC); names are unique.
    return c.json(pageInMemory(trusts.list().map(trustJson), (t) => t.name, listQuery(c, isString)));
  });

  app.post('/publish/trusts', async (c) => {
    const by = admin(c);
    const row = trusts.create(await parseTrust(await body(ctx, c)));
    ctx.log.info({ trust: row.id, name: row.name, by: by.username }, 'trust policy created');
    ctx.audit.recordFor(c, { action: 'trust.create', target: row.name, detail: { id: row.id, repos: toInput(row).repos } });
    return c.json(trustJson(row), 201);
  });

  app.get('/publish/trusts/:id', (c) => {
    requireAdmin(c);
    return c.json(trustJson(trusts.get(c.req.param('id'))));
  });

  app.patch('/publish/trusts/:id', async (c) => {
    const by = admin(c);
    const before = trusts.get(c.req.param('id'));
    const old = toInput(before);
    const b = await body(ctx, c);
    const next = await parseTrust(b, old);
    const row = trusts.update(before.id, next);
    let closed = 0;
    if (changesIdentity(old, next)) closed = sessions.closeForTrust(row.id, 'trust policy changed');
    else if (next.disabled && !old.disabled) closed = sessions.closeForTrust(row.id, 'trust policy disabled');
    ctx.log.info({ trust: row.id, by: by.username, closed }, 'trust policy changed');
    ctx.audit.recordFor(c, { action: 'trust.update', target: row.name, detail: { id: row.id, fields: Object.keys(b), closed_sessions: closed } });
    return c.json(trustJson(row));
  });

  app.delete('/publish/trusts/:id', (c) => {
    const by = admin(c);
    const row = trusts.get(c.req.param('id'));
    // Close first: deleting sets the sessions' trust_id to null, after which they could not be found.
    const closed = sessions.closeForTrust(row.id, 'trust policy deleted');
    trusts.delete(row.id);
    ctx.log.info({ trust: row.id, by: by.username, closed }, 'trust policy deleted');
    ctx.audit.recordFor(c, { action: 'trust.delete', target: row.name, detail: { id: row.id, closed_sessions: closed } });
    return c.body(null, 204);
  });

  return app;
}

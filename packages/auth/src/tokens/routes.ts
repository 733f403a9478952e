import { Hono } from 'hono';
import { forbidden, listQuery, notFound, page, readJsonObject, requireUser, type CoreContext, type TroveEnv } from '@trove/core';
import { isCursor } from '../paging.js';
import { readTokenJson, type ReadTokenStore } from './read-tokens.js';

/** `GET/POST /api/tokens`, `DELETE /api/tokens/{id}`: the caller's own read tokens. */
export function tokenRoutes(ctx: CoreContext, tokens: ReadTokenStore): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();

  app.get('/tokens', (c) => {
    const { user } = requireUser(c);
    const r = tokens.page(user.id, { ...listQuery(c, isCursor) });
    return c.json(page(r.items.map(readTokenJson), r.last));
  });

  app.post('/tokens', async (c) => {
    const cred = requireUser(c);
    if (cred.via === 'read_token') throw forbidden('a token cannot create tokens');
    if (cred.user.kind !== 'local') throw forbidden('SSO users cannot create read tokens');
    const b = await readJsonObject(c, ctx.settings.int('max_json_bytes'));
    const { row, token } = tokens.create(cred.user, b.name, b.expires_in_days);
    ctx.audit.recordFor(c, { action: 'token.create', target: cred.user.username, detail: { id: row.id, name: row.name } });
    return c.json({ ...readTokenJson(row), token }, 201);
  });

  app.delete('/tokens/:id', (c) => {
    const cred = requireUser(c);
    if (cred.via === 'read_token') throw forbidden('read tokens cannot change anything');
    if (!tokens.remove(cred.user.id, c.req.param('id'))) throw notFound('token not found');
    ctx.audit.recordFor(c, { action: 'token.delete', target: cred.user.username, detail: { id: c.req.param('id') } });
    return c.body(null, 204);
  });

  return app;
}

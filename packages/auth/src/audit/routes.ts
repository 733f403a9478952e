import { Hono } from 'hono';
import { auditJson, listQuery, page, requireAdmin, type CoreContext, type TroveEnv } from '@trove/core';

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** `GET /api/audit` (admin): the audit log, newest first, `{items, next}`. */
export function auditRoutes(ctx: CoreContext): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();
  app.get('/audit', (c) => {
    requireAdmin(c);
    const r = ctx.audit.page({ ...listQuery(c, isId) });
    return c.json(page(r.items.map(auditJson), r.last));
  });
  return app;
}

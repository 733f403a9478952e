import { Hono } from 'hono';
import { auditJson, badRequest, listQuery, page, requireAdmin, type CoreContext, type TroveEnv } from '@trove/core';

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** An optional filter value from the query: trimmed, '' when absent, 400 when absurdly long. */
export function filterParam(raw: string | undefined, name: string): string {
  const v = (raw ?? '').trim();
  if (v.length > 200) throw badRequest(`${name} is too long`);
  return v;
}

/**
 * `GET /api/audit` (admin): the audit log, newest first, `{items, next}`. Filters:
 * `actor` (exact user name), `action` (`repo` matches `repo.create`, `repo.update`...),
 * `repo` (the repository's entries and those of its permissions).
 */
export function auditRoutes(ctx: CoreContext): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();
  app.get('/audit', (c) => {
    requireAdmin(c);
    const r = ctx.audit.page({
      ...listQuery(c, isId),
      actor: filterParam(c.req.query('actor'), 'actor'),
      action: filterParam(c.req.query('action'), 'action'),
      repo: filterParam(c.req.query('repo'), 'repo'),
    });
    return c.json(page(r.items.map(auditJson), r.last));
  });
  return app;
}

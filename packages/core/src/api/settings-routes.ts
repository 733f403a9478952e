import { Hono } from 'hono';
import type { CoreContext } from '../context.js';
import type { TroveEnv } from '../http/env.js';
import { requireAdmin } from '../http/guards.js';
import { readJson } from '../http/json-body.js';

/** `GET/PATCH /api/settings` (admin). */
export function settingsRoutes(ctx: CoreContext) {
  const app = new Hono<TroveEnv>();
  app.get('/settings', (c) => {
    requireAdmin(c);
    return c.json(ctx.settings.describe());
  });
  app.patch('/settings', async (c) => {
    requireAdmin(c);
    const body = await readJson(c, ctx.settings.int('max_json_bytes'));
    const r = await ctx.settings.patch(body);
    // Keys only: values may be secrets.
    if (r.status < 300 && body && typeof body === 'object') {
      ctx.audit.recordFor(c, { action: 'settings.update', detail: { keys: Object.keys(body as object) } });
    }
    return c.json(r.body as object, r.status as 200);
  });
  return app;
}

import { Hono, type MiddlewareHandler } from 'hono';
import { sql } from 'drizzle-orm';
import { repoRoutes } from '../api/repo-routes.js';
import { settingsRoutes } from '../api/settings-routes.js';
import { systemRoutes } from '../api/system-routes.js';
import type { CoreContext } from '../context.js';
import { clientIp, proxyMatcher } from './client-ip.js';
import { credentials } from './credentials.js';
import { csrfGuard } from './csrf.js';
import { refuseDotSegments } from './dot-segments.js';
import type { TroveEnv } from './env.js';
import { errorHandler, notFoundHandler } from './error-mapper.js';
import { apiCredentialRules } from './guards.js';
import { mountFormat } from './mount.js';

export interface HttpAppParts {
  /** Extra `/api` routes (auth, publishing, mirror, format admin routes), each mounted at `/api`. */
  api?: Hono<TroveEnv>[];
  /** Serves the web UI for everything else (GET only). */
  web?: MiddlewareHandler<TroveEnv>;
}

/**
 * The one HTTP application: `/healthz`, `/api/*`, every format's routes and the UI.
 * Order matters: client IP first (rate limits need it), then per-surface credentials.
 */
export function buildHttpApp(ctx: CoreContext, parts: HttpAppParts = {}): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();
  let matcher = proxyMatcher(ctx.settings.list('trusted_proxies'));
  ctx.settings.watch(['trusted_proxies'], () => {
    matcher = proxyMatcher(ctx.settings.list('trusted_proxies'));
  });

  app.onError(errorHandler);
  app.notFound(notFoundHandler);
  app.use('*', async function requestLog(c, next) {
    c.set('log', ctx.log);
    // The access log is a debug line; at any other level a request pays nothing for it.
    if (!ctx.log.isLevelEnabled('debug')) return next();
    const started = performance.now();
    await next();
    // Path only: query strings can carry codes (user_code) and are never logged.
    ctx.log.debug({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) }, 'request');
  });
  app.use('*', refuseDotSegments());
  app.use('*', clientIp({ trusted: () => matcher }));

  app.get('/healthz', (c) => {
    try {
      ctx.db.get(sql`select 1`);
      return c.text('ok');
    } catch {
      return c.text('database unavailable', 503);
    }
  });

  app.use('/api/*', csrfGuard({ baseUrl: ctx.baseUrl }));
  app.use('/api/*', credentials({ resolver: () => ctx.credentials.resolver, surface: 'api' }));
  app.use('/api/*', apiCredentialRules());
  app.route('/api', settingsRoutes(ctx));
  app.route('/api', repoRoutes(ctx));
  app.route('/api', systemRoutes(ctx));
  for (const extra of parts.api ?? []) app.route('/api', extra);
  for (const f of ctx.formats.all()) {
    if (f.apiRoutes) app.route('/api', f.apiRoutes(ctx));
  }
  app.all('/api/*', notFoundHandler);

  for (const f of ctx.formats.all()) mountFormat(app, ctx, f);
  if (parts.web) app.get('*', parts.web);
  return app;
}

import { Hono, type MiddlewareHandler } from 'hono';
import { sql } from 'drizzle-orm';
import type { RunningModules } from '../modules/lifecycle.js';
import { clientIp, proxyMatcher } from './client-ip.js';
import { credentials } from './credentials.js';
import { csrfGuard } from './csrf.js';
import { refuseDotSegments } from './dot-segments.js';
import type { TroveEnv } from './env.js';
import { errorHandler, notFoundHandler } from './error-mapper.js';
import { apiCredentialRules } from './guards.js';
import { mountFormat } from './mount.js';

/** Requests that never commit anything a client relies on (a read token's last use is bookkeeping). */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface HttpAppParts {
  /** Serves the web UI for everything else (GET only). */
  web?: MiddlewareHandler<TroveEnv>;
}

/**
 * The one HTTP application over running modules: `/healthz`, `/api/*` (every module's
 * API routes), every format under `/{name}`, and the UI.
 * Order matters: client IP first (rate limits need it), then per-surface credentials.
 */
export function buildHttpApp(running: RunningModules, parts: HttpAppParts = {}): Hono<TroveEnv> {
  const ctx = running.core;
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
  app.use('*', async function durableWrites(c, next) {
    await next();
    // Answered only once what the request committed survives a power cut: a 201 is a promise.
    if (!READ_METHODS.has(c.req.method)) await ctx.durability.settled();
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

  app.use('/api/*', async function notCached(c, next) {
    await next();
    // API answers hold tokens, codes and account data: no browser or proxy cache keeps them.
    if (!c.res.headers.has('cache-control')) c.res.headers.set('Cache-Control', 'no-store');
  });
  app.use('/api/*', csrfGuard({ baseUrl: ctx.baseUrl }));
  app.use('/api/*', credentials({ resolver: () => ctx.credentials.resolver, surface: 'api' }));
  app.use('/api/*', apiCredentialRules(() => ctx.credentials));
  for (const routes of running.apiRoutes) app.route('/api', routes);
  app.all('/api/*', notFoundHandler);

  for (const m of running.modules) if (m.kind === 'format') mountFormat(app, ctx, m.name, m.instance);
  if (parts.web) app.get('*', parts.web);
  return app;
}

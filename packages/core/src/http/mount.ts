import type { Context, Hono } from 'hono';
import { PatternRouter } from 'hono/router/pattern-router';
import type { Core } from '../create-core.js';
import type { FormatInstance } from '../modules/format.js';
import { notFound, troveError } from '../errors.js';
import { credentials } from './credentials.js';
import type { TroveEnv } from './env.js';
import { formatSecurityHeaders, refuseEmbedding } from './format-headers.js';

/**
 * Mounts a format under `/{name}` with the format-route credential middleware (Basic only,
 * no cookies): its routes are relative, so none can answer outside its prefix. Its fixed
 * public paths (like `/keys/debian.asc`) are declared one by one, GET only, without
 * credential resolution, and may not reach into `/api` or another prefix.
 */
export function mountFormat(app: Hono<TroveEnv>, core: Core, name: string, instance: FormatInstance): void {
  app.use(`/${name}/*`, formatSecurityHeaders());
  app.use(`/${name}/*`, refuseEmbedding());
  app.use(`/${name}/*`, credentials({ resolver: () => core.credentials.resolver, surface: 'format' }));
  app.route(`/${name}`, instance.routes);
  // Runs only when no format route answered: the path may exist for other methods.
  const allowedOn = routeMethods(instance.routes);
  app.all(`/${name}/*`, (c) => answerOtherMethod(c, allowedOn(c.req.path.slice(name.length + 1) || '/')));
  for (const [path, handler] of Object.entries(instance.publicRoutes ?? {})) {
    const first = path.split('/')[1] ?? '';
    if (!path.startsWith('/') || first === 'api' || first === 'healthz' || (first !== name && core.formats.get(first))) {
      throw new Error(`format ${name}: public path ${path} must be a fixed path outside /api and other formats' prefixes`);
    }
    app.get(path, formatSecurityHeaders(), refuseEmbedding(), handler);
  }
}

/**
 * The methods a format's own routes (not its middleware) answer on a path. HEAD comes with GET
 * as Hono serves it; OPTIONS is answered here.
 */
function routeMethods(routes: Hono<TroveEnv>): (path: string) => string[] {
  const router = new PatternRouter<string>();
  const methods = new Set<string>();
  for (const r of routes.routes) {
    if (r.method === 'ALL') continue;
    router.add(r.method, r.path, r.method);
    methods.add(r.method);
  }
  return (path) => {
    const allowed = [...methods].filter((m) => router.match(m, path)[0].length > 0);
    if (allowed.includes('GET')) allowed.splice(allowed.indexOf('GET') + 1, 0, 'HEAD');
    return allowed;
  };
}

/** A request no format route took: 404 for a path the format does not serve, else 405 (or OPTIONS' 204) with Allow. */
function answerOtherMethod(c: Context<TroveEnv>, allowed: string[]): Response {
  if (allowed.length === 0 || allowed.includes(c.req.method)) throw notFound('not found');
  const allow = [...allowed, 'OPTIONS'].join(', ');
  if (c.req.method === 'OPTIONS') return c.body(null, 204, { Allow: allow });
  throw troveError('method_not_allowed', `${c.req.method} is not supported here; this path answers ${allow}`, {}, { Allow: allow });
}

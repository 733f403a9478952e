import type { Hono } from 'hono';
import type { Core } from '../create-core.js';
import type { FormatInstance } from '../modules/format.js';
import { credentials } from './credentials.js';
import type { TroveEnv } from './env.js';
import { formatSecurityHeaders } from './format-headers.js';

/**
 * Mounts a format under `/{name}` with the format-route credential middleware (Basic only,
 * no cookies): its routes are relative, so none can answer outside its prefix. Its fixed
 * public paths (like `/keys/debian.asc`) are declared one by one, GET only, without
 * credential resolution, and may not reach into `/api` or another prefix.
 */
export function mountFormat(app: Hono<TroveEnv>, core: Core, name: string, instance: FormatInstance): void {
  app.use(`/${name}/*`, formatSecurityHeaders());
  app.use(`/${name}/*`, credentials({ resolver: () => core.credentials.resolver, surface: 'format' }));
  app.route(`/${name}`, instance.routes);
  for (const [path, handler] of Object.entries(instance.publicRoutes ?? {})) {
    const first = path.split('/')[1] ?? '';
    if (!path.startsWith('/') || first === 'api' || first === 'healthz' || (first !== name && core.formats.get(first))) {
      throw new Error(`format ${name}: public path ${path} must be a fixed path outside /api and other formats' prefixes`);
    }
    app.get(path, formatSecurityHeaders(), handler);
  }
}

import type { Hono } from 'hono';
import type { CoreContext } from '../context.js';
import type { FormatDefinition } from '../format.js';
import { credentials } from './credentials.js';
import type { TroveEnv } from './env.js';
import { formatSecurityHeaders } from './format-headers.js';

/**
 * Mounts a format's routes on `app` with the format-route credential middleware
 * (Basic only, no cookies) in front of `/{name}/*`. Fixed extra paths a format
 * serves (like `/keys/debian.asc`) are public and get no credential resolution.
 */
export function mountFormat(app: Hono<TroveEnv>, ctx: CoreContext, def: FormatDefinition<any>): void {
  app.use(`/${def.name}/*`, formatSecurityHeaders());
  app.use(`/${def.name}/*`, credentials({ resolver: () => ctx.credentials.resolver, surface: 'format' }));
  app.route('/', def.routes(ctx));
}

import type { MiddlewareHandler } from 'hono';
import { forbidden } from '../errors.js';
import type { TroveEnv } from './env.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses cross-origin browser writes to the JSON API. Browsers send `Sec-Fetch-Site`
 * and `Origin` on every cross-site POST; CLI clients (curl, CI) send neither and are
 * not CSRF vectors because they carry no ambient cookie. A write is allowed when it is
 * same-origin by `Sec-Fetch-Site`, or its Origin (scheme, host and port) is the request's own
 * origin or `base_url`'s.
 */
export function csrfGuard(opts: { baseUrl: () => string }): MiddlewareHandler<TroveEnv> {
  return async function csrfMiddleware(c, next) {
    if (SAFE.has(c.req.method)) return next();
    const site = c.req.header('sec-fetch-site');
    const origin = c.req.header('origin');
    if (site === 'cross-site' || site === 'same-site') throw forbidden('cross-origin request refused');
    if (origin === 'null') throw forbidden('cross-origin request refused');
    if (origin) {
      // The whole origin (scheme, host, port): the same host over plain HTTP or another port
      // is another origin, and may be another application.
      let given: string;
      try {
        given = new URL(origin).origin;
      } catch {
        throw forbidden('cross-origin request refused');
      }
      const base = opts.baseUrl();
      const allowed = [new URL(c.req.url).origin, base ? new URL(base).origin : undefined];
      if (!allowed.includes(given)) throw forbidden('cross-origin request refused');
    }
    return next();
  };
}

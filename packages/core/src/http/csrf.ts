import type { MiddlewareHandler } from 'hono';
import { forbidden } from '../errors.js';
import type { TroveEnv } from './env.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses cross-origin browser writes to the JSON API. Browsers send `Sec-Fetch-Site`
 * and `Origin` on every cross-site POST; CLI clients (curl, CI) send neither and are
 * not CSRF vectors because they carry no ambient cookie. A write is allowed when it is
 * same-origin by `Sec-Fetch-Site`, or its Origin matches the Host (or `base_url`).
 */
export function csrfGuard(opts: { baseUrl: () => string }): MiddlewareHandler<TroveEnv> {
  return async function csrfMiddleware(c, next) {
    if (SAFE.has(c.req.method)) return next();
    const site = c.req.header('sec-fetch-site');
    const origin = c.req.header('origin');
    if (site === 'cross-site' || site === 'same-site') throw forbidden('cross-origin request refused');
    if (origin && origin !== 'null') {
      const host = c.req.header('host');
      let originHost: string;
      try {
        originHost = new URL(origin).host;
      } catch {
        throw forbidden('cross-origin request refused');
      }
      const base = opts.baseUrl();
      const baseHost = base ? new URL(base).host : undefined;
      if (originHost !== host && originHost !== baseHost) throw forbidden('cross-origin request refused');
    } else if (origin === 'null') {
      throw forbidden('cross-origin request refused');
    }
    return next();
  };
}

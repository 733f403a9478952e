import type { MiddlewareHandler } from 'hono';
import { badRequest } from '../errors.js';
import type { TroveEnv } from './env.js';
import { rawRequestTarget } from './repo-path.js';

const isDotSegment = (segment: string): boolean => {
  if (segment === '.' || segment === '..') return true;
  if (!segment.includes('%')) return false;
  try {
    const d = decodeURIComponent(segment);
    return d === '.' || d === '..';
  } catch {
    return false; // malformed escapes are the format route's to refuse
  }
};

/**
 * Refuses `.` and `..` path segments, literal or percent-encoded, before routing.
 * The URL parser resolves them (`/raw/r/%2e%2e/%2e%2e/etc` becomes `/etc`), so a
 * traversal attempt would otherwise fall through to another route instead of getting
 * the 400 a format route gives it. No legitimate client sends them.
 */
export function refuseDotSegments(): MiddlewareHandler<TroveEnv> {
  return async function refuseDotSegmentsMiddleware(c, next) {
    const raw = rawRequestTarget(c);
    if (raw && raw.split('?')[0]!.split('/').some(isDotSegment)) {
      throw badRequest('invalid path: "." and ".." segments are not allowed');
    }
    await next();
  };
}

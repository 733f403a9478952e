import type { Context } from 'hono';
import { troveError } from '../errors.js';

const invalidPath = (message: string) => troveError('invalid_path', message);
import type { TroveEnv } from './env.js';

/**
 * Characters no path segment may hold: the backslash, C0 and C1 controls, and the invisible
 * formatting characters (zero-width, line and paragraph separators, bidirectional overrides and
 * isolates, BOM) that make one name look like another in a listing.
 */
const FORBIDDEN_IN_SEGMENT = /[\\\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

/** Whether a decoded path segment is refused by every format route (empty, `.`, `..`, or a forbidden character). */
export function isUnsafeSegment(segment: string): boolean {
  return segment === '' || segment === '.' || segment === '..' || segment.includes('/') || FORBIDDEN_IN_SEGMENT.test(segment);
}

/**
 * Splits the raw (still percent-encoded) request path after `/{format}/` into the
 * repository name and a normalised file path. Decoding happens per segment, so an
 * encoded slash, `..`, `.`, NUL, a backslash or an empty segment is refused with 400
 * instead of being normalised into something else.
 */
export function parseRepoPath(c: Context<TroveEnv>, format: string): { repo: string; path: string; trailingSlash: boolean } {
  // The raw request line, not a parsed URL: URL parsing would already have turned `%2e%2e` into `..` and resolved it.
  const raw = c.env?.incoming?.url ?? new URL(c.req.url).pathname;
  const pathname = raw.split('?')[0]!;
  const prefix = `/${format}/`;
  if (!pathname.startsWith(prefix)) throw invalidPath('invalid path');
  const rawSegments = pathname.slice(prefix.length).split('/');
  const trailingSlash = rawSegments.length > 1 && rawSegments[rawSegments.length - 1] === '';
  if (trailingSlash) rawSegments.pop();
  const segments = rawSegments.map((s) => {
    let d: string;
    try {
      d = decodeURIComponent(s);
    } catch {
      throw invalidPath('invalid percent-encoding in path');
    }
    if (isUnsafeSegment(d)) {
      throw invalidPath('invalid path: empty, "." or ".." segments, backslashes, control and invisible formatting characters are not allowed');
    }
    return d;
  });
  const [repo, ...rest] = segments;
  if (!repo) throw invalidPath('invalid path: missing repository');
  return { repo, path: rest.join('/'), trailingSlash };
}

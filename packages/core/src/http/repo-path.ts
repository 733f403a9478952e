import type { Context } from 'hono';
import { troveError } from '../errors.js';

const invalidPath = (message: string) => troveError('invalid_path', message);
import type { TroveEnv } from './env.js';

/** Characters no path segment may hold: the backslash, and C0 controls. */
const FORBIDDEN_IN_SEGMENT = /[\\\u0000-\u001f\u007f]/;
/**
 * Refused in a path being written too: C1 controls, line and paragraph separators, the
 * bidirectional embeddings, overrides and isolates that reorder how a name reads ("Trojan Source",
 * CVE-2021-42574) and the BOM. Zero-width joiners stay: Persian, Devanagari and emoji need them.
 * Reads keep the older rule, so a file stored under such a name before stays reachable.
 */
const FORBIDDEN_IN_NEW_SEGMENT = /[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

/** Whether a decoded path segment is refused by every format route (empty, `.`, `..`, or a forbidden character). */
export function isUnsafeSegment(segment: string, mode: 'read' | 'write' = 'write'): boolean {
  if (segment === '' || segment === '.' || segment === '..' || segment.includes('/') || FORBIDDEN_IN_SEGMENT.test(segment)) return true;
  return mode === 'write' && FORBIDDEN_IN_NEW_SEGMENT.test(segment);
}

/** `http://host:port` in front of an absolute-form request target (RFC 9112 3.2.2), which a server must accept. */
const ABSOLUTE_FORM_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * The request target as the client sent it, still percent-encoded, in origin form (`/path?query`).
 * URL parsing would already have turned `%2e%2e` into `..` and resolved it; this does not.
 */
export function rawRequestTarget(c: Context<TroveEnv>): string | undefined {
  const raw = c.env?.incoming?.url;
  if (raw === undefined || raw.startsWith('/')) return raw;
  const origin = ABSOLUTE_FORM_PREFIX.exec(raw);
  return origin ? raw.slice(origin[0].length) || '/' : raw;
}

/**
 * Splits the raw (still percent-encoded) request path after `/{format}/` into the
 * repository name and a normalised file path. Decoding happens per segment, so an
 * encoded slash, `..`, `.`, NUL, a backslash or an empty segment is refused with 400
 * instead of being normalised into something else.
 */
export function parseRepoPath(c: Context<TroveEnv>, format: string, mode: 'read' | 'write' = 'read'): { repo: string; path: string; trailingSlash: boolean } {
  const raw = rawRequestTarget(c) ?? new URL(c.req.url).pathname;
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
    if (isUnsafeSegment(d, mode)) {
      throw invalidPath('invalid path: empty, "." or ".." segments, backslashes, control characters, line separators and bidirectional overrides are not allowed');
    }
    return d;
  });
  const [repo, ...rest] = segments;
  if (!repo) throw invalidPath('invalid path: missing repository');
  return { repo, path: rest.join('/'), trailingSlash };
}

import type { MiddlewareHandler } from 'hono';
import { forbidden } from '../errors.js';
import { isEmbeddingRequest } from './active-content.js';
import type { TroveEnv } from './env.js';

/**
 * Every answer of a format route (`/raw`, `/maven`, `/debian`, their index pages included)
 * holds bytes someone uploaded or a page Trove built from their names. Neither may run as a
 * page of Trove's origin, where the admin's `tr_session` cookie lives: `sandbox` gives the
 * document an opaque origin with scripts, forms and plugins off, `default-src 'none'` loads
 * nothing, and `nosniff` stops a browser from guessing a runnable type. Trove's own HTML
 * listings need none of that and still render.
 */
export const FORMAT_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "sandbox; default-src 'none'",
  'X-Content-Type-Options': 'nosniff',
  // The answer depends on them (refuseEmbedding): a shared cache must not hand a download to a script load.
  Vary: 'Sec-Fetch-Dest, Sec-Fetch-Site',
};

export function formatSecurityHeaders(): MiddlewareHandler<TroveEnv> {
  return async function formatSecurityHeadersMiddleware(c, next) {
    // serveAsset writes some answers straight to the Node response: set them there first too.
    const out = c.env?.outgoing;
    if (out && !out.headersSent) for (const [k, v] of Object.entries(FORMAT_SECURITY_HEADERS)) out.setHeader(k, v);
    await next();
    for (const [k, v] of Object.entries(FORMAT_SECURITY_HEADERS)) c.res.headers.set(k, v);
  };
}

/**
 * Refuses a browser's request for stored bytes as a script, style sheet or worker (`Sec-Fetch-Dest`).
 * The UI's CSP allows scripts from its own origin, which format routes share: should any page of
 * Trove ever be tricked into a `<script src="/raw/...">`, the upload still does not run. Mounted
 * after `formatSecurityHeaders`, so the refusal carries those headers too.
 */
export function refuseEmbedding(): MiddlewareHandler<TroveEnv> {
  return async function refuseEmbeddingMiddleware(c, next) {
    if (isEmbeddingRequest(c.req.header('sec-fetch-dest'), c.req.header('sec-fetch-site'))) {
      throw forbidden('stored files are not served as scripts, style sheets or workers of a page');
    }
    await next();
  };
}

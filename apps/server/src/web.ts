import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { extname, join, relative, sep } from 'node:path';
import type { MiddlewareHandler } from 'hono';
import type { TroveEnv } from '@trove/core';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface WebFile {
  body: Buffer;
  gzip: Buffer | null;
  type: string;
  etag: string;
  immutable: boolean;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/**
 * The embedded UI: the Vite build is read into memory once at start (it is small),
 * gzipped once, and served from there. Files under `assets/` carry a content hash in
 * their names and are cached immutably; `index.html` is revalidated every time so a
 * new release is picked up at once.
 */
export function webUi(distDir: string): MiddlewareHandler<TroveEnv> {
  const files = new Map<string, WebFile>();
  if (existsSync(join(distDir, 'index.html'))) {
    for (const p of walk(distDir)) {
      const rel = '/' + relative(distDir, p).split(sep).join('/');
      const body = readFileSync(p);
      const type = TYPES[extname(p)] ?? 'application/octet-stream';
      const compressible = /^(text\/|application\/json|image\/svg)/.test(type) && body.length > 512;
      files.set(rel, {
        body,
        gzip: compressible ? gzipSync(body) : null,
        type,
        etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`,
        immutable: rel.startsWith('/assets/'),
      });
    }
  }
  const fallback: WebFile = {
    body: Buffer.from('<!doctype html><title>Trove</title><p>The web UI is not built. Run <code>npx -y pnpm@10 build</code>.</p>'),
    gzip: null,
    type: 'text/html; charset=utf-8',
    etag: '"unbuilt"',
    immutable: false,
  };

  return async function webUiHandler(c, next) {
    const path = c.req.path === '/' ? '/index.html' : c.req.path;
    const file = files.get(path) ?? (path === '/index.html' ? fallback : undefined);
    if (!file) return next();
    const headers: Record<string, string> = {
      'Content-Type': file.type,
      ETag: file.etag,
      'Cache-Control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
    };
    if (path === '/index.html') {
      // The UI talks only to this origin; no third-party script, style, font or frame.
      headers['Content-Security-Policy'] =
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; object-src 'none'; worker-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
      headers['Referrer-Policy'] = 'no-referrer';
      headers['X-Frame-Options'] = 'DENY';
    }
    if (c.req.header('if-none-match') === file.etag) return new Response(null, { status: 304, headers });
    const gz = file.gzip && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
    if (gz) headers['Content-Encoding'] = 'gzip';
    const body = gz ? file.gzip! : file.body;
    headers['Content-Length'] = String(body.length);
    return new Response(c.req.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
  };
}

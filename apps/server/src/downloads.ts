import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { MiddlewareHandler } from 'hono';
import { notFound, serveBytes, type Representation, type TroveEnv } from '@trove/core';

export const CLI_DOWNLOAD_PATH = '/downloads/trove-cli.tgz';

/**
 * `GET /downloads/trove-cli.tgz`, no credentials: the `trove` CLI as packed by its build, so
 * `npm install -g {base_url}/downloads/trove-cli.tgz` works against any Trove. The package
 * is small (about 10 KiB) and fixed for the life of the process, so it is read once and
 * served from memory; every other GET goes on to `fallback` (the web UI).
 */
export function cliDownload(tarball: string, fallback: MiddlewareHandler<TroveEnv>): MiddlewareHandler<TroveEnv> {
  const bytes = existsSync(tarball) ? readFileSync(tarball) : null;
  const rep: Representation | null = bytes && {
    etag: `"${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}"`,
    lastModified: statSync(tarball).mtime,
    size: bytes.length,
    contentType: 'application/gzip',
    cacheControl: 'no-cache',
  };
  return async function cliDownloadHandler(c, next) {
    if (c.req.path !== CLI_DOWNLOAD_PATH) return fallback(c, next);
    if (!bytes || !rep) throw notFound('the CLI package is not built on this server (run the build)');
    return serveBytes(c, rep, () => bytes);
  };
}

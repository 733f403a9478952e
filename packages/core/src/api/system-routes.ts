import { count, sum } from 'drizzle-orm';
import { Hono } from 'hono';
import { readFileSync, statSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { CoreContext } from '../context.js';
import { assets, repos } from '../db/schema.js';
import type { TroveEnv } from '../http/env.js';
import { requireAdmin } from '../http/guards.js';

/** Read once: the workspace's packages share one version, and core's package.json sits beside src/ and dist/ alike. */
const VERSION = (() => {
  try {
    return String((JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
})();

/** Free and total bytes of the file system holding `path`; null when it cannot be read (missing directory, no permission). */
async function diskOf(path: string): Promise<{ path: string; free_bytes: number; total_bytes: number } | null> {
  try {
    const s = await statfs(path);
    return { path, free_bytes: s.bavail * s.bsize, total_bytes: s.blocks * s.bsize };
  } catch {
    return null;
  }
}

/** Bytes of the database file plus its write-ahead log; null for a database that is not a local file. */
function databaseBytes(ctx: CoreContext): number | null {
  const file = (ctx.db as unknown as { $client?: { name?: unknown; memory?: boolean } }).$client;
  if (!file || typeof file.name !== 'string' || file.memory) return null;
  let total = 0;
  for (const f of [file.name, `${file.name}-wal`]) {
    try {
      total += statSync(f).size;
    } catch {
      /* no WAL file right after a checkpoint */
    }
  }
  return total;
}

/**
 * `GET /api/system` (admin): what an operator checks first: version, uptime, where blobs
 * live, how much is stored, and how much room is left on the data directory and the blob root.
 */
export function systemRoutes(ctx: CoreContext) {
  const app = new Hono<TroveEnv>();
  app.get('/system', async (c) => {
    requireAdmin(c);
    const s = ctx.settings;
    const backend = s.string('storage') === 'r2' ? 's3' : s.string('storage');
    const fsRoot = s.string('fs.root') || join(ctx.dataDir, 'blobs');
    const location =
      backend === 'fs' ? fsRoot : `${s.string('s3.endpoint').replace(/\/+$/, '')}/${s.string('s3.bucket')}${s.string('s3.prefix') ? `/${s.string('s3.prefix')}` : ''}`;
    const files = ctx.db.select({ n: count(), bytes: sum(assets.size) }).from(assets).get();
    const repoCount = ctx.db.select({ n: count() }).from(repos).get();
    return c.json({
      version: VERSION,
      uptime_seconds: Math.floor(process.uptime()),
      started_at: new Date(Date.now() - process.uptime() * 1000).toISOString(),
      storage: { backend, location, driver: ctx.blobs.name },
      repositories: repoCount?.n ?? 0,
      files: files?.n ?? 0,
      bytes: Number(files?.bytes ?? 0),
      database_bytes: databaseBytes(ctx),
      disk: {
        data_dir: await diskOf(ctx.dataDir),
        blob_root: backend === 'fs' ? await diskOf(fsRoot) : null,
      },
    });
  });
  return app;
}

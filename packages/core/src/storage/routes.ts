import { Hono } from 'hono';
import { and, asc, eq, gt } from 'drizzle-orm';
import { storageMoveFailures } from '../db/schema.js';
import { conflict, notFound, TroveError } from '../errors.js';
import type { TroveEnv } from '../http/env.js';
import { requireAdmin } from '../http/guards.js';
import { readJson } from '../http/json-body.js';
import { decodeCursor, page, pageLimit } from '../http/paging.js';
import type { JobRecord } from '../jobs/runner.js';
import { STORAGE_JOB_KEY, type StorageDeps } from './deps.js';
import { GC_KIND, startSweep, sweepJson, type SweepProgress } from './gc.js';
import { MOVE_KIND, moveJson, type MoveProgress, type MovePayload } from './move.js';

const isInt = (v: unknown): v is number => Number.isInteger(v);

/**
 * `/api/storage/moves/...`, `POST /api/settings/storage/test` and the blob sweep's
 * `GET/POST /api/storage/gc` (admin only).
 */
export function storageRoutes(deps: StorageDeps, test: (body: unknown) => Promise<void>) {
  const app = new Hono<TroveEnv>();
  const move = (id: string) => {
    const rec = deps.jobs.get<MovePayload, MoveProgress>(id);
    if (!rec || rec.kind !== MOVE_KIND) throw notFound('no such storage move');
    return rec;
  };

  app.post('/settings/storage/test', async (c) => {
    requireAdmin(c);
    const body = await readJson(c, deps.settings.int('max_json_bytes'));
    try {
      await test(body);
    } catch (err) {
      if (err instanceof TroveError && err.status < 500) return c.json({ ok: false, error: err.message, ...err.body }, 400);
      throw err;
    }
    return c.json({ ok: true });
  });

  app.get('/storage/moves/current', (c) => {
    requireAdmin(c);
    const rec = deps.jobs.latest<MovePayload, MoveProgress>({ kind: MOVE_KIND });
    if (!rec) throw notFound('no storage move yet');
    return c.json(moveJson(rec));
  });
  app.get('/storage/moves/:id', (c) => {
    requireAdmin(c);
    return c.json(moveJson(move(c.req.param('id'))));
  });
  app.get('/storage/moves/:id/failures', (c) => {
    requireAdmin(c);
    const rec = move(c.req.param('id'));
    const limit = pageLimit(c.req.query('limit'));
    const after = decodeCursor(c.req.query('after'), isInt) ?? 0;
    const rows = deps.db
      .select()
      .from(storageMoveFailures)
      .where(and(eq(storageMoveFailures.moveId, rec.id), gt(storageMoveFailures.id, after)))
      .orderBy(asc(storageMoveFailures.id))
      .limit(limit + 1)
      .all();
    const more = rows.length > limit;
    const items = (more ? rows.slice(0, limit) : rows).map((r) => ({ asset_id: r.assetId, key: r.key, reason: r.reason }));
    return c.json(page(items, more ? rows[limit - 1]!.id : null));
  });
  app.delete('/storage/moves/:id', async (c) => {
    requireAdmin(c);
    const rec = move(c.req.param('id'));
    if (moveJson(rec).state !== 'copying') throw conflict(`the storage move has already ended (${moveJson(rec).state})`);
    const end = await deps.jobs.cancel(rec.id);
    return c.json(moveJson(end as JobRecord<MovePayload, MoveProgress>));
  });

  app.get('/storage/gc', (c) => {
    requireAdmin(c);
    const rec = deps.jobs.latest<unknown, SweepProgress>({ kind: GC_KIND });
    if (!rec) throw notFound('no blob sweep yet');
    return c.json(sweepJson(rec));
  });
  app.post('/storage/gc', (c) => {
    requireAdmin(c);
    const rec = startSweep(deps);
    if (!rec) throw conflict(`a storage job is running (${deps.jobs.active(STORAGE_JOB_KEY)?.kind ?? 'unknown'})`);
    return c.json(sweepJson(rec as JobRecord<unknown, SweepProgress>), 202);
  });
  return app;
}

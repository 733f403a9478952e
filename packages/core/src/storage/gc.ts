import { eq, sql } from 'drizzle-orm';
import { assets } from '../db/schema.js';
import type { JobHandler, JobRecord } from '../jobs/runner.js';
import { STORAGE_JOB_KEY, type StorageDeps } from './deps.js';

export const GC_KIND = 'storage.gc';

export interface SweepProgress {
  scanned: number;
  removed: number;
  bytes: number;
}

/**
 * Blob garbage collection: removes blobs no asset references (left by a replace, a deletion,
 * an abandoned upload or a crash between blob write and commit). Three guards keep a blob an
 * upload still needs: its age (younger than `storage.gc_grace` is kept, also for writers on
 * other nodes), the pin an upload holds from blob write to commit, and the reference check,
 * made in the same synchronous step as the claim on the key (BlobStore.collect).
 */
export function sweepHandler(deps: StorageDeps): JobHandler<Record<string, never>, SweepProgress> {
  return async (run) => {
    const g: SweepProgress = { scanned: 0, removed: 0, bytes: 0 };
    const cutoff = Date.now() - deps.settings.ms('storage.gc_grace');
    const referenced = deps.db
      .select({ id: assets.id })
      .from(assets)
      .where(eq(assets.blobKey, sql.placeholder('key')))
      .limit(1)
      .prepare();
    for await (const e of deps.blobs.list('sha256/')) {
      run.signal.throwIfAborted();
      g.scanned++;
      if (!e.modified || e.modified.getTime() > cutoff) continue; // unknown or young: an upload may still need it
      if (referenced.get({ key: e.key }) !== undefined) continue;
      // The change that left it unreferenced (a background writer's, no answer flushed it) must be on disk
      // first: else a power cut after the deletion brings back a row naming a blob that is gone.
      await deps.durability.settled();
      if (await deps.blobs.collect(e.key, () => referenced.get({ key: e.key }) === undefined)) {
        g.removed++;
        g.bytes += e.size;
        deps.log.info({ blob: e.key, size: e.size }, 'blob sweep removed an unreferenced blob');
      }
      run.update(g);
    }
    deps.log.info({ sweep: run.job.id, ...g }, 'blob sweep finished');
    return g;
  };
}

/** Starts a sweep unless a storage job (a move or another sweep) runs. */
export function startSweep(deps: StorageDeps): JobRecord | undefined {
  if (deps.jobs.active(STORAGE_JOB_KEY)) return undefined;
  try {
    return deps.jobs.start(GC_KIND, STORAGE_JOB_KEY, {}, { scanned: 0, removed: 0, bytes: 0 });
  } catch {
    return undefined; // lost a race with a move: the next interval sweeps
  }
}

export function sweepJson(rec: JobRecord<unknown, SweepProgress>) {
  return {
    id: rec.id,
    state: rec.state === 'cancelling' ? 'running' : rec.state,
    scanned: rec.progress.scanned ?? 0,
    removed: rec.progress.removed ?? 0,
    bytes: rec.progress.bytes ?? 0,
    error: rec.error,
    started_at: rec.createdAt.toISOString(),
    finished_at: rec.finishedAt?.toISOString() ?? null,
  };
}

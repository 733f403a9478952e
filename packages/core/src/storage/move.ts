import { createHash, randomUUID } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, asc, count, gt, gte } from 'drizzle-orm';
import { isContentKey, type BlobDriver } from '@trove/blobstore';
import { assets, storageMoveFailures } from '../db/schema.js';
import type { JobHandler, JobRecord, JobRun } from '../jobs/runner.js';
import type { StorageDeps } from './deps.js';

/** Tries after the first to return a blob written during a cancelled or failed move (backoff doubles from RETURN_BACKOFF_MS). */
const RETURN_RETRIES = 4;
const RETURN_BACKOFF_MS = 500;
/** Tries after the first to ask the old store whether it holds the new store's marker, before the cleanup gives up. */
const SAME_PLACE_RETRIES = 3;

export const MOVE_KIND = 'storage.move';

/** Location settings as the PATCH gave them (`storage`, `fs.root`, `s3.endpoint`, `s3.bucket`, `s3.prefix`): never credentials. */
export type LocationValues = Record<string, string>;

export interface MovePayload {
  target: LocationValues;
  from: LocationValues;
  /**
   * Each store's credentials, region and path style, sealed under the master key: the settings hold
   * the old store's until the switch and the new one's after it, and a move resumed (or cleaning up)
   * after a restart needs both. Absent in moves recorded before they were kept.
   */
  targetCredentials?: string;
  fromCredentials?: string;
  /** For the API: where the blobs go, without credentials. */
  description: Record<string, string>;
}

export interface MoveProgress {
  phase: 'copying' | 'returning' | 'cleanup';
  /** Checkpoint: every asset with a smaller or equal id has been handled. */
  after: number;
  total: number;
  copied: number;
  skipped: number;
  failed: number;
  bytes: number;
  error?: string;
  switched_at?: string;
  /** Blobs removed from the old store after the move (null until then). */
  old_removed?: number | null;
  /** Why the old store's blobs were left in place after the switch, when that was not a choice (API: `note`). */
  note?: string;
}

const BATCH = 200;
const PARALLEL = 8;

type Row = { id: number; key: string; size: number; sha256: string };
type Outcome = { kind: 'copied'; bytes: number } | { kind: 'skipped' } | { kind: 'failed'; reason: string };

/**
 * The storage move, a job of the job facility (key `storage`, one at a time), in three phases
 * kept in its checkpoint so a restart resumes the right one:
 *  1. copying: writes go to the target; every asset's blob, in id order, is copied from the old
 *     store, hashed on the way and read back from the target to verify its sha256. Reads keep
 *     coming from the old store (see BlobStore), so nothing is read from a copy in progress.
 *  2. the switch: the location settings are saved, the target becomes the only store, then
 *     cleanup empties the old store once no read on it is left in flight.
 *  On cancel or failure, returning: writes go back to the old store and the blobs written to
 *  the target since the move began are copied back before the target is let go.
 */
export function moveHandler(deps: StorageDeps): JobHandler<MovePayload, MoveProgress> {
  return async (run) => {
    const p = run.job.payload;
    const g: MoveProgress = Object.assign({ phase: 'copying', after: 0, total: 0, copied: 0, skipped: 0, failed: 0, bytes: 0, old_removed: null }, run.job.progress);
    if (g.phase === 'cleanup') {
      const old = await deps.driverAt(p.from, p.fromCredentials);
      await removeOld(deps, run, g, old, deps.blobs.driver);
      return g;
    }
    const target = await deps.driverAt(p.target, p.targetCredentials);
    const old = deps.blobs.driver;
    deps.blobs.beginMove(target);
    try {
      if (g.phase === 'returning') throw new Error(g.error ?? 'the move was stopped');
      // Writes that began before the switch land on the old store: wait until they are committed,
      // so the pass below sees their asset rows.
      await deps.blobs.settlePins();
      if (!run.resumed) g.total = deps.db.select({ n: count() }).from(assets).get()?.n ?? 0;
      run.update(g, { flush: true });
      await copyAll(deps, run, g, old, target);
      await catchUp(deps, run, g, old, target);
      if (g.failed) throw new Error(`${g.failed} file(s) could not be copied; see the failures`);
      // A cancel asked for during the last pass (which looks at the signal only between batches) ends the
      // move here: from the next line on it has switched, and DELETE answers 409.
      run.signal.throwIfAborted();
      deps.settings.setInternal(deps.settingsAt(p.target, p.targetCredentials));
      deps.blobs.endMove(target);
      g.phase = 'cleanup';
      g.switched_at = new Date().toISOString();
      run.update(g, { flush: true });
      deps.log.info({ move: run.job.id, copied: g.copied, skipped: g.skipped, bytes: g.bytes }, 'storage move done; removing the old store\'s blobs');
      await removeOld(deps, run, g, old, target);
      return g;
    } catch (err) {
      if (run.signal.aborted && !run.cancelRequested) throw err; // shutdown: resumed at the next start
      if (g.phase === 'cleanup') throw err;
      const reason = run.cancelRequested ? 'cancelled' : (err as Error).message;
      g.phase = 'returning';
      g.error = reason;
      run.update(g, { flush: true });
      deps.blobs.returnWrites();
      await deps.blobs.settlePins();
      await copyBack(deps, run, target, old);
      deps.blobs.endMove(old);
      void deps.blobs.drainReads(target).then(() => target.close?.());
      deps.log.warn({ move: run.job.id, reason }, 'storage move stopped; blobs stay where they were');
      throw err;
    }
  };
}

async function copyAll(deps: StorageDeps, run: JobRun<MovePayload, MoveProgress>, g: MoveProgress, from: BlobDriver, to: BlobDriver) {
  for (;;) {
    run.signal.throwIfAborted();
    const rows = deps.db
      .select({ id: assets.id, key: assets.blobKey, size: assets.size, sha256: assets.sha256 })
      .from(assets)
      .where(gt(assets.id, g.after))
      .orderBy(asc(assets.id))
      .limit(BATCH)
      .all();
    if (!rows.length) return;
    const inBatch = new Map<string, Promise<Outcome>>();
    await eachLimited(rows, PARALLEL, async (row) => {
      run.signal.throwIfAborted();
      const first = inBatch.get(row.key);
      let outcome: Outcome;
      if (first) {
        const o = await first;
        outcome = o.kind === 'failed' ? o : { kind: 'skipped' };
      } else {
        const pending = copyOne(row, from, to, run.signal, run.resumed).then(async (o) => {
          // One more try after a pause: a store under load resets a connection now and then.
          if (o.kind !== 'failed' || run.signal.aborted) return o;
          await new Promise((r) => setTimeout(r, 500));
          return copyOne(row, from, to, run.signal, true);
        });
        inBatch.set(row.key, pending);
        outcome = await pending;
      }
      if (outcome.kind === 'copied') {
        g.copied++;
        g.bytes += outcome.bytes;
      } else if (outcome.kind === 'skipped') g.skipped++;
      else {
        g.failed++;
        deps.db.insert(storageMoveFailures).values({ moveId: run.job.id, assetId: row.id, key: row.key, reason: outcome.reason }).run();
      }
    });
    g.after = rows[rows.length - 1]!.id;
    g.total = Math.max(g.total, g.copied + g.skipped + g.failed);
    run.update(g);
  }
}

/**
 * Asset rows written since the move began (a second of slack for clocks), in id order and
 * BATCH at a time: what the catch-up pass re-checks and what a cancel copies back.
 */
function* changedSinceMove(deps: StorageDeps, run: JobRun<MovePayload, MoveProgress>) {
  const since = new Date(run.job.createdAt.getTime() - 1000);
  let after = 0;
  for (;;) {
    const rows = deps.db
      .select({ id: assets.id, key: assets.blobKey, size: assets.size, sha256: assets.sha256 })
      .from(assets)
      .where(and(gt(assets.id, after), gte(assets.updatedAt, since)))
      .orderBy(asc(assets.id))
      .limit(BATCH)
      .all();
    if (!rows.length) return;
    yield rows;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * Assets changed since the move began, looked at once more: a replace keeps its asset id, so one
 * committed on the old store behind the checkpoint (a write begun just before a resumed move took
 * over the writes) would otherwise be missed. Most are on the target already: one head each.
 */
async function catchUp(deps: StorageDeps, run: JobRun<MovePayload, MoveProgress>, g: MoveProgress, from: BlobDriver, to: BlobDriver) {
  for (const rows of changedSinceMove(deps, run)) {
    run.signal.throwIfAborted();
    await eachLimited(rows, PARALLEL, async (row) => {
      const o = await copyOne(row, from, to, run.signal, true);
      if (o.kind === 'copied') {
        g.copied++;
        g.bytes += o.bytes;
      } else if (o.kind === 'failed') {
        g.failed++;
        deps.db.insert(storageMoveFailures).values({ moveId: run.job.id, assetId: row.id, key: row.key, reason: o.reason }).run();
      }
    });
    run.update(g);
  }
}

/** One blob to `to`, verified: the bytes hashed on the way, then read back from `to` and hashed again. */
async function copyOne(row: Row, from: BlobDriver, to: BlobDriver, signal: AbortSignal | undefined, lookFirst: boolean): Promise<Outcome> {
  try {
    // Looked for first only where the target may already hold it (a resumed move, a return):
    // on a first pass the extra request would cost a quarter of the copy, and a blob an upload
    // wrote meanwhile is just stored again, the same bytes under the same key.
    if (lookFirst) {
      const there = await to.head(row.key);
      if (there && there.size === row.size) return { kind: 'skipped' };
    }
    const src = await from.get(row.key, { signal });
    if (!src) {
      // Written since the move began: only the target has it.
      const there = await to.head(row.key);
      if (there && there.size === row.size) return { kind: 'skipped' };
      return { kind: 'failed', reason: 'missing from the store it is moved from' };
    }
    const hash = createHash('sha256');
    const hashing = new Transform({
      transform(chunk, _enc, cb) {
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    const put = to.put(row.key, { stream: hashing, size: row.size }, { signal }).catch((err) => {
      src.destroy(); // nothing consumes the bytes any more: let go of the source
      hashing.destroy();
      throw err;
    });
    await Promise.all([put, pipeline(src, hashing, { signal })]);
    if (hash.digest('hex') !== row.sha256) {
      await to.delete(row.key);
      return { kind: 'failed', reason: 'the stored bytes do not match their sha256' };
    }
    const back = await to.get(row.key, { signal });
    if (!back || (await sha256Of(back)) !== row.sha256) {
      await to.delete(row.key);
      return { kind: 'failed', reason: 'the copy on the new store does not match its sha256' };
    }
    return { kind: 'copied', bytes: row.size };
  } catch (err) {
    if (signal?.aborted) throw err;
    return { kind: 'failed', reason: (err as Error).message || String(err) };
  }
}

async function sha256Of(stream: Readable): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of stream) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** After a cancel or failure: every blob written to the target since the move began goes back to the old store. */
async function copyBack(deps: StorageDeps, run: JobRun<MovePayload, MoveProgress>, target: BlobDriver, old: BlobDriver) {
  for (const rows of changedSinceMove(deps, run)) {
    await eachLimited(rows, PARALLEL, async (row) => {
      // The file's only copy is on the target, which the old store stops reading: worth several tries (a 5xx, a full disk freed).
      let o = await copyOne(row, target, old, undefined, true);
      for (let attempt = 0; o.kind === 'failed' && attempt < RETURN_RETRIES; attempt++) {
        await sleep(RETURN_BACKOFF_MS * 2 ** attempt);
        o = await copyOne(row, target, old, undefined, true);
      }
      if (o.kind !== 'failed') return;
      // Listed with the move's failures, so an admin sees which files now answer 404 (their bytes stay on the target).
      deps.db.insert(storageMoveFailures).values({ moveId: run.job.id, assetId: row.id, key: row.key, reason: `not returned to the old store: ${o.reason}` }).run();
      deps.log.error({ move: run.job.id, blob: row.key, reason: o.reason }, 'could not return a blob to the old store; it stays only on the target');
    });
  }
}


/**
 * Empties the old store once nothing reads from it. First the switch must be on disk (the WAL flush
 * of `durability`, as the sweep waits for it): a power cut after the deletion would otherwise bring
 * back settings naming the emptied store. Then a marker written to the target and looked for in the
 * old store proves they are different places: deleting "old" blobs from the store just moved to would
 * lose them. A store that cannot answer is asked again; if it still cannot, nothing is deleted and
 * the move record says why. Only content keys are deleted: a store nested in the old one (its
 * `sha256/`) lists as `sha256/sha256/...`, which is none.
 */
async function removeOld(deps: StorageDeps, run: JobRun<MovePayload, MoveProgress>, g: MoveProgress, old: BlobDriver, target: BlobDriver) {
  await deps.blobs.drainReads(old);
  await deps.durability.settled();
  const marker = `.trove-move/${randomUUID()}`;
  await target.put(marker, { stream: Readable.from([Buffer.from(run.job.id)]), size: Buffer.byteLength(run.job.id) });
  const place = await holdsMarker(old, marker, run.signal);
  await target.delete(marker);
  let removed = 0;
  if (place.same === null) {
    g.note = `the old store's blobs were kept: asking it whether it is the new store under another name failed (${place.error}); remove them by hand once you know it is not`;
    deps.log.warn({ move: run.job.id, reason: place.error }, 'could not tell whether the old store is the new one; nothing removed');
  } else if (place.same) {
    deps.log.warn({ move: run.job.id }, 'the old and new store are the same place; nothing removed');
  } else {
    let keys: string[] = [];
    let foreign = 0;
    const flush = async () => {
      run.signal.throwIfAborted();
      if (old.deleteMany) await old.deleteMany(keys);
      else await eachLimited(keys, PARALLEL, (k) => old.delete(k));
      removed += keys.length;
      keys = [];
    };
    for await (const e of old.list('sha256/')) {
      if (!isContentKey(e.key)) {
        foreign++;
        continue;
      }
      keys.push(e.key);
      if (keys.length === 1000) await flush();
    }
    await flush();
    if (foreign) deps.log.warn({ move: run.job.id, kept: foreign }, 'objects under sha256/ that are not blobs of the old store were left in place');
  }
  g.old_removed = removed;
  run.update(g, { flush: true });
  deps.log.info({ move: run.job.id, removed }, 'old store emptied');
  await old.close?.();
}

/** Whether `store` holds `marker`; `same: null` with the last error when it kept failing to answer. */
async function holdsMarker(store: BlobDriver, marker: string, signal: AbortSignal): Promise<{ same: boolean } | { same: null; error: string }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return { same: (await store.head(marker)) !== null };
    } catch (err) {
      if (attempt === SAME_PLACE_RETRIES) return { same: null, error: (err as Error)?.message || String(err) };
    }
    await sleep(RETURN_BACKOFF_MS * 2 ** attempt, undefined, { signal });
  }
}

async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The storage move resource of the API (SPEC "Storage move"); never credentials. */
export function moveJson(rec: JobRecord<MovePayload, MoveProgress>) {
  const g = rec.progress;
  const state =
    rec.state === 'done' || g.phase === 'cleanup' ? 'done' : rec.state === 'failed' ? 'failed' : rec.state === 'cancelled' ? 'cancelled' : 'copying';
  return {
    id: rec.id,
    state,
    total: g.total ?? 0,
    copied: g.copied ?? 0,
    skipped: g.skipped ?? 0,
    failed: g.failed ?? 0,
    bytes: g.bytes ?? 0,
    error: state === 'failed' ? (rec.error ?? g.error ?? null) : null,
    started_at: rec.createdAt.toISOString(),
    finished_at: rec.finishedAt?.toISOString() ?? g.switched_at ?? null,
    target: rec.payload.description,
    /** Blobs removed from the old store after the move; null until that has finished. */
    old_removed: rec.state === 'done' ? (g.old_removed ?? null) : null,
    /** Why the old store's blobs were left in place (it could not be told apart from the new one); else null. */
    note: g.note ?? null,
  };
}

import { createDriver, LOCATION_KEYS, storageConfig, storageLocation, type BlobDriver, type StorageConfig } from '@trove/blobstore';
import type { Hono } from 'hono';
import type { CoreContext } from '../context.js';
import { badRequest, conflict, invalidSettings } from '../errors.js';
import type { TroveEnv } from '../http/env.js';
import type { PatchCommit, PendingChange } from '../settings/registry.js';
import { STORAGE_JOB_KEY, type StorageDeps } from './deps.js';
import { GC_KIND, startSweep, sweepHandler } from './gc.js';
import { MOVE_KIND, moveHandler, moveJson, type MovePayload } from './move.js';
import { nestedProblem } from './nesting.js';
import { ProbeError, probeStore } from './probe.js';
import { storageRoutes } from './routes.js';

export { MOVE_KIND, moveJson } from './move.js';
export { GC_KIND } from './gc.js';

/** Every key of the storage settings group: a PATCH touching one during a move gets 409. */
const STORAGE_KEYS = new Set(['storage', 'fs.root', 's3.endpoint', 's3.region', 's3.bucket', 's3.access_key_id', 's3.secret_access_key', 's3.prefix', 's3.path_style']);
/** What a store needs besides its location. */
const CREDENTIAL_KEYS = ['s3.region', 's3.access_key_id', 's3.secret_access_key', 's3.path_style'] as const;
/** The name a move's sealed credentials are bound to (SecretBox). */
const CREDENTIALS_SEAL = 'storage.move.credentials';

export interface Storage {
  apiRoutes: Hono<TroveEnv>[];
  /** Resumes an interrupted move or sweep and starts the sweep timer. Call before listening. */
  start(): void;
  stop(): void;
}

/**
 * The storage subsystem: changing the blob store live (probe, move, 409 rules), the move's
 * routes, and the blob sweep. Wiring: `createStorage(ctx)`, its `apiRoutes` mounted at `/api`,
 * `start()` before the listener opens, `stop()` before `ctx.close()`.
 */
export function createStorage(ctx: CoreContext): Storage {
  const { settings, blobs, jobs, log, dataDir } = ctx;
  const warn = (message: string) => log.warn(message);
  /** A store's credentials, region and path style, sealed for a move's record (which holds no secret in clear). */
  const sealCredentials = (get: (k: string) => unknown) =>
    ctx.secrets.seal(CREDENTIALS_SEAL, JSON.stringify(Object.fromEntries(CREDENTIAL_KEYS.map((k) => [k, get(k)]))));
  const settingsAt = (loc: Record<string, string>, sealed?: string): Record<string, string | boolean> =>
    sealed ? { ...(JSON.parse(ctx.secrets.open(CREDENTIALS_SEAL, sealed)) as Record<string, string | boolean>), ...loc } : loc;
  const deps: StorageDeps = {
    db: ctx.db,
    durability: ctx.durability,
    blobs,
    settings,
    jobs,
    log,
    dataDir,
    driverAt: (loc, sealed) => createDriver(configAt(settingsAt(loc, sealed), (k) => settings.get(k)), { dataDir, warn }),
    settingsAt,
  };
  jobs.register(MOVE_KIND, moveHandler(deps));
  jobs.register(GC_KIND, sweepHandler(deps));

  const liveConfig = () => storageConfig((k) => settings.get(k));
  const where = (cfg: StorageConfig) => JSON.stringify(storageLocation(cfg, dataDir));
  const moveRunning = () => jobs.active(STORAGE_JOB_KEY)?.kind === MOVE_KIND;
  /** A move that has not switched yet: copying, or returning what it copied after a cancel or failure. */
  const moveCopying = () => {
    const job = jobs.active(STORAGE_JOB_KEY);
    return job?.kind === MOVE_KIND && (job.progress as { phase?: string } | null)?.phase !== 'cleanup';
  };

  /** Builds and probes the store a pending change describes; 400 with the reason when it does not work. */
  async function probe(next: (k: string) => unknown): Promise<{ driver: BlobDriver; same: boolean }> {
    let driver: BlobDriver;
    try {
      driver = await createDriver(storageConfig(next), { dataDir, maxAttempts: 1 });
    } catch (err) {
      throw badRequest(`storage settings are incomplete: ${(err as Error).message}`);
    }
    try {
      return { driver, ...(await probeStore(driver, blobs.driver)) };
    } catch (err) {
      await driver.close?.();
      if (err instanceof ProbeError) throw badRequest(err.message);
      throw err;
    }
  }

  // The refusals that need no store: they run with the other packages' checks, before anything acts.
  settings.addPatchHook(async ({ changes, next }: PendingChange) => {
    if (![...changes.keys()].some((k) => STORAGE_KEYS.has(k))) {
      // SPEC: PATCH /api/settings answers 409 while a storage move runs, whatever it changes. Once the
      // move has switched (its state is done) only the old store's cleanup is left: other keys are free.
      if (changes.size > 0 && moveCopying()) throw conflict('a storage move is running; settings can be changed once it has ended (or been cancelled)');
      return;
    }
    if (moveRunning()) throw conflict('a storage move is running; change storage settings after it ends');
    const nextConfig = storageConfig(next);
    if (where(nextConfig) === where(liveConfig())) return;
    const nested = await nestedProblem(liveConfig(), nextConfig, dataDir);
    if (nested) throw invalidSettings('the new blob store would lie inside the current one, or hold it; nothing was saved', { [nested.key]: nested.message });
  });

  // The change itself, once every check has passed (auth's, Debian's): the probe, then, in one step with
  // the save, the driver swap (an empty store) or the move's start. A refused PATCH has changed nothing.
  settings.addPatchApplier(async ({ changes, next }: PendingChange): Promise<PatchCommit | void> => {
    if (![...changes.keys()].some((k) => STORAGE_KEYS.has(k))) return;
    const nextConfig = storageConfig(next);
    const fromWhere = where(liveConfig());
    if (where(nextConfig) === fromWhere) return; // credentials, region, path style: saved, then the watcher rebuilds
    const { driver: probeDriver, same } = await probe(next);
    await probeDriver.close?.();
    const nextDriver = await createDriver(nextConfig, { dataDir, warn });
    // Writes under way land in the old store: it is empty only once they have ended, and only if none
    // began while it was looked at. The check and the swap run in one step; later writes go to the new store.
    const begun = blobs.writesBegun;
    let nothingToMove = same;
    try {
      if (!same) {
        await blobs.settlePins();
        nothingToMove = !(await holdsFiles(blobs.driver));
      }
      if (!nothingToMove) {
        const active = jobs.active(STORAGE_JOB_KEY);
        if (active?.kind === GC_KIND) await jobs.cancel(active.id); // a sweep gives way to a move
      }
    } catch (err) {
      await nextDriver.close?.(); // an S3 client holds sockets
      throw err;
    }
    return () => {
      // Another PATCH may have got here first while this one probed.
      const refuse = (message: string) => {
        void nextDriver.close?.();
        return conflict(message);
      };
      if (moveRunning()) throw refuse('a storage move is running; change storage settings after it ends');
      if (where(liveConfig()) !== fromWhere) throw refuse('the storage settings changed while this change was checked; send it again');
      if (nothingToMove && (same || blobs.writesBegun === begun)) {
        // Nothing to move: the new store takes over as the settings are saved.
        return { onSaved: () => swap(nextDriver, nextConfig) };
      }
      void nextDriver.close?.();
      const active = jobs.active(STORAGE_JOB_KEY);
      if (active) throw conflict(`a storage job is running (${active.kind}); send the change again`);
      const pick = (get: (k: string) => unknown) => Object.fromEntries(LOCATION_KEYS.map((k) => [k, String(get(k) ?? '')]));
      const payload: MovePayload = {
        target: pick(next),
        from: pick((k) => settings.get(k)),
        description: storageLocation(nextConfig, dataDir),
        targetCredentials: sealCredentials(next),
        fromCredentials: sealCredentials((k) => settings.get(k)),
      };
      // Saved at the switch: until then the settings describe the store the blobs are in, credentials included.
      // The move starts once the other keys are saved (same step: nothing runs in between).
      return {
        handled: [...STORAGE_KEYS],
        onSaved: () => {
          const rec = jobs.start(MOVE_KIND, STORAGE_JOB_KEY, payload, { phase: 'copying', after: 0, total: 0, copied: 0, skipped: 0, failed: 0, bytes: 0, old_removed: null });
          log.info({ move: rec.id, target: payload.description }, 'storage move started');
          return { status: 202, body: { move: moveJson(rec as never) } };
        },
      };
    };
  });

  /** What the current driver was built from: on fs the S3 credentials do not matter. */
  const fingerprint = (cfg: StorageConfig) => (cfg.storage === 'fs' ? where(cfg) : JSON.stringify(cfg));
  let builtFrom = fingerprint(liveConfig());
  /** The only driver changes outside a move: the old one is closed once its reads are over. */
  function swap(driver: BlobDriver, cfg: StorageConfig) {
    const old = blobs.replaceDriver(driver);
    builtFrom = fingerprint(cfg);
    void blobs.drainReads(old).then(() => old.close?.());
  }
  let rebuilding = Promise.resolve();
  settings.watch([...STORAGE_KEYS], () => {
    rebuilding = rebuilding.then(async () => {
      if (blobs.moving || moveRunning()) return; // the move owns the drivers until it ends
      const cfg = liveConfig();
      if (fingerprint(cfg) === builtFrom) return;
      try {
        swap(await createDriver(cfg, { dataDir, warn }), cfg);
        log.info({ storage: storageLocation(cfg, dataDir) }, 'blob store reconfigured');
      } catch (err) {
        log.error({ err: (err as Error).message }, 'blob store settings rejected; keeping the previous store');
      }
    });
  });

  async function test(body: unknown) {
    const pending = settings.preview(body);
    // The PATCH's nesting rule, so a test that passes is a change that will be taken.
    const nested = await nestedProblem(liveConfig(), storageConfig(pending.next), dataDir);
    if (nested) throw invalidSettings('the new blob store would lie inside the current one, or hold it', { [nested.key]: nested.message });
    const { driver } = await probe(pending.next);
    await driver.close?.();
  }

  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      startSweep(deps);
      schedule();
    }, settings.ms('storage.gc_interval'));
    timer.unref();
  };

  return {
    apiRoutes: [storageRoutes(deps, test)],
    start() {
      jobs.resumeAll();
      schedule();
      settings.watch(['storage.gc_interval'], schedule);
    },
    stop() {
      clearTimeout(timer);
    },
  };
}

/** A store's settings over the live ones (credentials, region, path style, where not given). */
function configAt(loc: Record<string, string | boolean>, get: (k: string) => unknown): StorageConfig {
  return storageConfig((k) => (k in loc ? loc[k] : get(k)));
}

async function holdsFiles(d: BlobDriver): Promise<boolean> {
  for await (const _ of d.list('sha256/')) return true;
  return false;
}

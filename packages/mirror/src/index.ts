import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { defineModule, type CoreContext, type MigrationSet, type TroveEnv } from '@trove/core';
import { mirrorApi } from './api.js';
import type { NexusClientOptions } from './nexus/client.js';
import { SourceService } from './sources.js';
import { MirrorSyncs } from './sync/syncs.js';

import { mirrorSettings } from './settings.js';

export { mirrorSettings } from './settings.js';

/** The mirror's tables (drizzle/), tracked in their own migrations table. */
export const mirrorMigrations: MigrationSet = {
  name: 'mirror',
  folder: fileURLToPath(new URL('../drizzle', import.meta.url)),
};

export interface MirrorOptions {
  /** Timeouts and retries of requests to sources (tests shorten the backoff). */
  client?: NexusClientOptions;
  /** Turns `mirror.sync_interval` into the timer's period; tests shrink it (default: as set, at least 1m). */
  period?: (intervalMs: number) => number;
  /** How long an admin request waits on the source before answering 502 (default 15 s; tests shorten it). */
  answerWithinMs?: number;
}

export interface Mirror {
  apiRoutes: Hono<TroveEnv>[];
  /** Starts the periodic syncs (unfinished syncs are resumed by core's start, `jobs.resumeAll()`). */
  start(): void;
  /** Stops the timer. Running syncs are aborted by core's `jobs.stop()`; they stay `running` for the next start. */
  stop(): Promise<void>;
  sources: SourceService;
  syncs: MirrorSyncs;
}

/**
 * The Nexus mirror: sources, mappings, syncs and cut-over. Needs `mirrorMigrations` applied and
 * `mirrorSettings` registered on the core it is given. A mirroring source with mapped repositories
 * and no sync running gets a scheduled sync once `mirror.sync_interval` (read live) has passed since
 * its last sync started.
 */
export function createMirror(ctx: CoreContext, opts: MirrorOptions = {}): Mirror {
  const sources = new SourceService(ctx, opts.client, opts.answerWithinMs);
  const syncs = new MirrorSyncs(ctx, sources, () => ctx.settings.int('mirror.concurrency'));
  let timer: NodeJS.Timeout | undefined;
  let unwatch: (() => void) | undefined;

  /** `mirror.sync_interval` as the scheduler uses it (tests shrink it). */
  const interval = () => {
    const ms = ctx.settings.ms('mirror.sync_interval');
    return opts.period ? opts.period(ms) : Math.max(60_000, ms);
  };
  /**
   * A source is due once an interval has passed since its last sync started (or since it was added):
   * read from the database, so neither a restart nor a change of the setting pushes a sync back.
   */
  const tick = () => {
    const now = Date.now();
    for (const source of sources.all()) {
      if (source.state !== 'mirroring' || syncs.active(source.id) !== undefined || !sources.mappings(source.id).length) continue;
      const since = syncs.lastStartedAt(source.id) ?? source.createdAt;
      if (now - since.getTime() < interval()) continue;
      try {
        syncs.start(source.id, 'schedule');
      } catch (err) {
        ctx.log.warn({ err, source: source.name }, 'mirror: scheduled sync not started');
      }
    }
  };
  // Looks often enough that a due source waits at most a quarter of the interval, and at most a minute.
  const schedule = () => {
    clearInterval(timer);
    timer = setInterval(tick, Math.min(60_000, Math.max(10, interval() / 4)));
    timer.unref();
  };

  return {
    apiRoutes: [mirrorApi(ctx, sources, syncs)],
    sources,
    syncs,
    start() {
      schedule();
      unwatch = ctx.settings.watch(['mirror.sync_interval'], schedule);
    },
    async stop() {
      clearInterval(timer);
      unwatch?.();
    },
  };
}

/** The mirror as a module: its settings and tables, `createMirror`'s routes, sync resume and timer. */
export function mirrorModule(opts: MirrorOptions = {}) {
  return defineModule({
    name: 'mirror',
    settings: mirrorSettings,
    migrations: mirrorMigrations,
    create(ctx) {
      const mirror = createMirror(ctx, opts);
      return { mirror, apiRoutes: mirror.apiRoutes, start: () => mirror.start(), stop: () => mirror.stop() };
    },
  });
}

import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import type { CoreContext, MigrationSet, TroveEnv } from '@trove/core';
import { mirrorApi } from './api.js';
import type { NexusClientOptions } from './nexus/client.js';
import { SourceService } from './sources.js';
import { SyncRunner } from './sync/runner.js';

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
}

export interface Mirror {
  apiRoutes: Hono<TroveEnv>[];
  /** Resumes syncs a stopped process left running and starts the periodic syncs. */
  start(): void;
  /** Stops the timer and aborts running syncs; their records stay `running` for the next start. */
  stop(): Promise<void>;
  sources: SourceService;
  runner: SyncRunner;
}

/**
 * The Nexus mirror: sources, mappings, syncs and cut-over. Needs `mirrorMigrations` applied and
 * `mirrorSettings` registered on the core it is given. Every `mirror.sync_interval` (read live) each
 * mirroring source with mapped repositories and no sync running gets a scheduled sync.
 */
export function createMirror(ctx: CoreContext, opts: MirrorOptions = {}): Mirror {
  const sources = new SourceService(ctx, opts.client);
  const runner = new SyncRunner(ctx, sources, () => ctx.settings.int('mirror.concurrency'));
  let timer: NodeJS.Timeout | undefined;
  let unwatch: (() => void) | undefined;

  const tick = () => {
    for (const source of sources.all()) {
      if (source.state !== 'mirroring' || runner.active(source.id) !== undefined || !sources.mappings(source.id).length) continue;
      try {
        runner.start(source.id, 'schedule');
      } catch (err) {
        ctx.log.warn({ err, source: source.name }, 'mirror: scheduled sync not started');
      }
    }
  };
  const schedule = () => {
    clearInterval(timer);
    const ms = ctx.settings.ms('mirror.sync_interval');
    timer = setInterval(tick, opts.period ? opts.period(ms) : Math.max(60_000, ms));
    timer.unref();
  };

  return {
    apiRoutes: [mirrorApi(ctx, sources, runner)],
    sources,
    runner,
    start() {
      runner.resumeAll();
      schedule();
      unwatch = ctx.settings.watch(['mirror.sync_interval'], schedule);
    },
    async stop() {
      clearInterval(timer);
      unwatch?.();
      await runner.stop();
    },
  };
}

import { and, asc, desc, eq, gt, lt, sql } from 'drizzle-orm';
import { conflict, notFound, type CoreContext } from '@trove/core';
import { mirrorFailures, mirrorSyncRepos, mirrorSyncs, type SyncRepoRow, type SyncRow } from '../schema.js';
import type { SourceService } from '../sources.js';
import { importRepo, type RepoCounters } from './import-repo.js';

export type SyncTrigger = SyncRow['trigger'];

/**
 * The seam between the mirror and whatever runs its syncs: today this class with its own
 * persisted records (mirror_syncs), shaped like core's job facility from the storage issue
 * (start / cancel / resumeAll / stop, one runner per source, records left `running` at shutdown
 * and resumed at the next start) so moving onto `ctx.jobs` replaces this file only.
 */
export interface SyncJobs {
  /** Persists a `running` sync and runs it on a later turn; 409 while one runs for the source. */
  start(sourceId: string, trigger: SyncTrigger): SyncRow;
  /** 409 when ended; else aborts and resolves with the `cancelled` record. */
  cancel(syncId: number): Promise<SyncRow>;
  /** At start: runs every sync a stopped process left `running`, keeping what it already imported. */
  resumeAll(): void;
  active(sourceId: string): number | undefined;
  /** Resolves once the sync has ended in this process. */
  wait(syncId: number): Promise<void>;
  /** At shutdown: aborts running syncs and waits; their records stay `running`. */
  stop(): Promise<void>;
}

interface Running {
  syncId: number;
  abort: AbortController;
  cancelRequested: boolean;
  done: Promise<void>;
}

export class SyncRunner implements SyncJobs {
  private readonly running = new Map<string, Running>();
  private stopped = false;

  constructor(
    private readonly ctx: CoreContext,
    private readonly sources: SourceService,
    private readonly concurrency: () => number,
  ) {}

  active(sourceId: string): number | undefined {
    return this.running.get(sourceId)?.syncId;
  }

  start(sourceId: string, trigger: SyncTrigger): SyncRow {
    if (this.running.has(sourceId)) throw conflict('a sync of this source is already running');
    const row = this.ctx.db.insert(mirrorSyncs).values({ sourceId, trigger, state: 'running', startedAt: new Date() }).returning().get();
    this.launch(row, false);
    return row;
  }

  resumeAll(): void {
    const rows = this.ctx.db.select().from(mirrorSyncs).where(eq(mirrorSyncs.state, 'running')).orderBy(asc(mirrorSyncs.id)).all();
    for (const row of rows) {
      if (this.running.has(row.sourceId)) continue;
      this.ctx.db.update(mirrorSyncs).set({ resumes: sql`${mirrorSyncs.resumes} + 1` }).where(eq(mirrorSyncs.id, row.id)).run();
      this.ctx.log.info({ sync: row.id }, 'mirror: resuming a sync a stopped process left running');
      this.launch(row, true);
    }
  }

  async cancel(syncId: number): Promise<SyncRow> {
    const row = this.get(syncId);
    const r = this.running.get(row.sourceId);
    if (row.state !== 'running' || !r || r.syncId !== syncId) throw conflict(`sync ${syncId} has ended (${row.state})`);
    r.cancelRequested = true;
    r.abort.abort();
    await r.done;
    return this.get(syncId);
  }

  async wait(syncId: number): Promise<void> {
    for (const r of this.running.values()) if (r.syncId === syncId) await r.done;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const r of this.running.values()) r.abort.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  get(syncId: number): SyncRow {
    const row = this.ctx.db.select().from(mirrorSyncs).where(eq(mirrorSyncs.id, syncId)).get();
    if (!row) throw notFound(`sync ${syncId} not found`);
    return row;
  }

  repos(syncId: number): SyncRepoRow[] {
    return this.ctx.db.select().from(mirrorSyncRepos).where(eq(mirrorSyncRepos.syncId, syncId)).orderBy(asc(mirrorSyncRepos.sourceRepo)).all();
  }

  history(sourceId: string, before: number | undefined, limit: number) {
    const rows = this.ctx.db
      .select()
      .from(mirrorSyncs)
      .where(and(eq(mirrorSyncs.sourceId, sourceId), before === undefined ? undefined : lt(mirrorSyncs.id, before)))
      .orderBy(desc(mirrorSyncs.id))
      .limit(limit + 1)
      .all();
    const more = rows.length > limit;
    const items = more ? rows.slice(0, limit) : rows;
    return { items, last: more ? items[items.length - 1]!.id : null };
  }

  failures(syncId: number, after: number | undefined, limit: number) {
    const rows = this.ctx.db
      .select()
      .from(mirrorFailures)
      .where(and(eq(mirrorFailures.syncId, syncId), after === undefined ? undefined : gt(mirrorFailures.id, after)))
      .orderBy(asc(mirrorFailures.id))
      .limit(limit + 1)
      .all();
    const more = rows.length > limit;
    const items = more ? rows.slice(0, limit) : rows;
    return { items, last: more ? items[items.length - 1]!.id : null };
  }

  private launch(row: SyncRow, resumed: boolean): void {
    const r: Running = { syncId: row.id, abort: new AbortController(), cancelRequested: false, done: Promise.resolve() };
    this.running.set(row.sourceId, r);
    r.done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.run(row, resumed, r))
      .catch((err: unknown) => this.ctx.log.error({ err, sync: row.id }, 'mirror: sync crashed'))
      .finally(() => {
        if (this.running.get(row.sourceId) === r) this.running.delete(row.sourceId);
      });
  }

  private finish(syncId: number, state: SyncRow['state'], error = ''): void {
    this.ctx.db.update(mirrorSyncs).set({ state, error: error.slice(0, 2000), finishedAt: new Date() }).where(eq(mirrorSyncs.id, syncId)).run();
    if (state !== 'done') {
      this.ctx.db.update(mirrorSyncRepos).set({ state: state === 'cancelled' ? 'cancelled' : 'failed' }).where(and(eq(mirrorSyncRepos.syncId, syncId), sql`${mirrorSyncRepos.state} IN ('pending', 'running')`)).run();
    }
  }

  private async run(row: SyncRow, resumed: boolean, r: Running): Promise<void> {
    const { db } = this.ctx;
    const signal = r.abort.signal;
    let source;
    try {
      source = this.sources.get(row.sourceId);
    } catch {
      return this.finish(row.id, 'failed', 'the source was deleted');
    }
    const mappings = this.sources.mappings(source.id);
    for (const m of mappings) {
      const target = this.ctx.repos.byId(m.targetRepoId);
      db.insert(mirrorSyncRepos).values({ syncId: row.id, sourceRepo: m.sourceRepo, target: target?.name ?? '', state: 'pending' }).onConflictDoNothing().run();
    }
    const client = this.sources.client(source);
    const failedRepos: string[] = [];
    try {
      for (const m of mappings) {
        const state = db.select().from(mirrorSyncRepos).where(and(eq(mirrorSyncRepos.syncId, row.id), eq(mirrorSyncRepos.sourceRepo, m.sourceRepo))).get()!;
        if (state.state === 'done') continue; // finished before the restart
        const target = this.ctx.repos.byId(m.targetRepoId);
        if (!target) {
          failedRepos.push(m.sourceRepo);
          db.update(mirrorSyncRepos).set({ state: 'failed', error: 'the target repository no longer exists' }).where(and(eq(mirrorSyncRepos.syncId, row.id), eq(mirrorSyncRepos.sourceRepo, m.sourceRepo))).run();
          continue;
        }
        // A resumed repository is listed again from the start: its listing-based counters and
        // failures restart; what it fetched (and its bytes) stays counted and is not fetched again.
        const counters: RepoCounters = { listed: 0, fetched: state.fetched, skipped: 0, deleted: state.deleted, failed: 0, bytes: state.bytes };
        if (resumed || state.state !== 'pending') db.delete(mirrorFailures).where(and(eq(mirrorFailures.syncId, row.id), eq(mirrorFailures.sourceRepo, m.sourceRepo))).run();
        db.update(mirrorSyncRepos).set({ state: 'running', error: '', ...counters }).where(and(eq(mirrorSyncRepos.syncId, row.id), eq(mirrorSyncRepos.sourceRepo, m.sourceRepo))).run();
        let repoState: SyncRepoRow['state'] = 'done';
        let error = '';
        try {
          await importRepo({ ctx: this.ctx, client, syncId: row.id, sourceId: source.id, sourceRepo: m.sourceRepo, target, concurrency: this.concurrency(), signal, counters });
        } catch (err) {
          if (signal.aborted) throw err;
          repoState = 'failed';
          error = `${(err as Error).message}; nothing was deleted`;
          failedRepos.push(m.sourceRepo);
        }
        db.update(mirrorSyncRepos).set({ state: repoState, error }).where(and(eq(mirrorSyncRepos.syncId, row.id), eq(mirrorSyncRepos.sourceRepo, m.sourceRepo))).run();
      }
    } catch (err) {
      if (r.cancelRequested) return this.finish(row.id, 'cancelled');
      if (this.stopped && signal.aborted) return; // shutdown: stays `running`, resumed at the next start
      return this.finish(row.id, 'failed', (err as Error).message);
    }
    if (failedRepos.length) return this.finish(row.id, 'failed', `could not list ${failedRepos.join(', ')}`);
    if (row.trigger === 'cutover') {
      const files = this.repos(row.id).reduce((n, x) => n + x.failed, 0);
      if (files > 0) return this.finish(row.id, 'failed', `cut-over not done: ${files} files were not imported (see failures); the repositories stay mirrored`);
      this.sources.markCutOver(source.id);
    }
    this.finish(row.id, 'done');
  }
}

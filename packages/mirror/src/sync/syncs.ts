import { and, asc, desc, eq, gt, lt, sql } from 'drizzle-orm';
import { conflict, notFound, type CoreContext, type JobRun } from '@trove/core';
import { mirrorFailures, mirrorSyncRepos, mirrorSyncs, type SyncRepoRow, type SyncRow } from '../schema.js';
import type { SourceService } from '../sources.js';
import { importRepo, type RepoCounters } from './import-repo.js';

export type SyncTrigger = SyncRow['trigger'];

/** The job kind a sync runs as on core's job facility. */
export const SYNC_KIND = 'mirror.sync';
/** One sync at a time per source: the facility refuses a second job with the same key (409). */
export const syncJobKey = (sourceId: string) => `mirror:${sourceId}`;

/** What the job record carries: the sync it runs (its history lives in `mirror_syncs`). */
export interface SyncPayload {
  syncId: number;
  sourceId: string;
}

/** The job's progress: the repository being imported and its counters so far. */
export interface SyncProgress {
  syncId: number;
  reposDone: number;
  reposTotal: number;
  repo?: string;
  counters?: RepoCounters;
}

/**
 * Mirror syncs on core's job facility (`ctx.jobs`, kind `mirror.sync`, key per source). The job
 * record is the run (persisted, cancelled through `jobs.cancel`, resumed by `jobs.resumeAll` at
 * start, left `running` at shutdown); `mirror_syncs` and its per-repository counters and failures
 * are the sync's history, which the API answers from. Construct it in the module's `create`, so
 * the kind is registered before core's start resumes unfinished jobs.
 */
export class MirrorSyncs {
  constructor(
    private readonly ctx: CoreContext,
    private readonly sources: SourceService,
    private readonly concurrency: () => number,
  ) {
    ctx.jobs.register<SyncPayload, SyncProgress>(SYNC_KIND, (run) => this.run(run));
  }

  /** The id of the sync running for a source, if any. */
  active(sourceId: string): number | undefined {
    const job = this.ctx.jobs.active(syncJobKey(sourceId));
    return job?.kind === SYNC_KIND ? (job.payload as SyncPayload).syncId : undefined;
  }

  /** Records a `running` sync and starts its job; 409 while one runs for the source. */
  start(sourceId: string, trigger: SyncTrigger): SyncRow {
    this.sources.assertNotRemapping(this.sources.get(sourceId));
    const key = syncJobKey(sourceId);
    if (this.ctx.jobs.active(key)) throw conflict('a sync of this source is already running');
    const row = this.ctx.db.insert(mirrorSyncs).values({ sourceId, trigger, state: 'running', startedAt: new Date() }).returning().get();
    try {
      this.ctx.jobs.start<SyncPayload, SyncProgress>(SYNC_KIND, key, { syncId: row.id, sourceId }, { syncId: row.id, reposDone: 0, reposTotal: 0 });
    } catch (err) {
      this.ctx.db.delete(mirrorSyncs).where(eq(mirrorSyncs.id, row.id)).run();
      throw err;
    }
    return row;
  }

  /** 409 when the sync has ended; else cancels its job and answers the `cancelled` record. */
  async cancel(syncId: number): Promise<SyncRow> {
    const row = this.get(syncId);
    const job = this.ctx.jobs.active(syncJobKey(row.sourceId));
    if (row.state !== 'running' || !job || (job.payload as SyncPayload).syncId !== syncId) throw conflict(`sync ${syncId} has ended (${row.state})`);
    await this.ctx.jobs.cancel(job.id);
    return this.get(syncId);
  }

  /**
   * Makes way for a cut-over: a running routine sync (manual or scheduled) is cancelled, its history
   * saying why, so the final sync can start now rather than whenever a sync is not running (with syncs
   * that take longer than the interval, never). What it imported stays recorded and is not fetched
   * again. 409 when the running sync is a cut-over's own. Answers the id of the sync it cancelled.
   */
  async makeWayForCutover(sourceId: string): Promise<number | undefined> {
    const running = this.active(sourceId);
    if (running === undefined) return undefined;
    if (this.get(running).trigger === 'cutover') throw conflict('a cut-over of this source is already running');
    const ended = await this.cancel(running);
    // A sync that finished as the cancel came keeps its own outcome.
    if (ended.state === 'cancelled') this.ctx.db.update(mirrorSyncs).set({ error: 'cancelled to start the cut-over; what it imported stays and is not fetched again' }).where(eq(mirrorSyncs.id, running)).run();
    return running;
  }

  /** When the source's newest sync started; undefined when it never synced. */
  lastStartedAt(sourceId: string): Date | undefined {
    return this.ctx.db.select({ startedAt: mirrorSyncs.startedAt }).from(mirrorSyncs).where(eq(mirrorSyncs.sourceId, sourceId)).orderBy(desc(mirrorSyncs.id)).limit(1).get()?.startedAt;
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

  private finish(syncId: number, state: SyncRow['state'], error = ''): void {
    this.ctx.db.update(mirrorSyncs).set({ state, error: error.slice(0, 2000), finishedAt: new Date() }).where(eq(mirrorSyncs.id, syncId)).run();
    if (state !== 'done') {
      this.ctx.db.update(mirrorSyncRepos).set({ state: state === 'cancelled' ? 'cancelled' : 'failed' }).where(and(eq(mirrorSyncRepos.syncId, syncId), sql`${mirrorSyncRepos.state} IN ('pending', 'running')`)).run();
    }
  }

  /** Ends the sync's record as `failed` and the job with it. */
  private fail(syncId: number, error: string): never {
    this.finish(syncId, 'failed', error);
    throw new Error(error);
  }

  /**
   * The job handler. It ends the sync's own record before the job ends: `done`/`failed` by
   * returning/throwing, `cancelled` when a cancel aborted it; a shutdown abort leaves the record
   * `running` (the job stays `running` too, and the next start resumes both).
   */
  private async run(run: JobRun<SyncPayload, SyncProgress>): Promise<SyncProgress> {
    const { db } = this.ctx;
    const { signal } = run;
    const row = this.ctx.db.select().from(mirrorSyncs).where(eq(mirrorSyncs.id, run.job.payload.syncId)).get();
    if (!row) throw new Error('the sync record is gone (its source was deleted)');
    if (row.state !== 'running') return run.job.progress; // ended before a crash lost the job's own end
    if (run.resumed) {
      db.update(mirrorSyncs).set({ resumes: sql`${mirrorSyncs.resumes} + 1` }).where(eq(mirrorSyncs.id, row.id)).run();
      this.ctx.log.info({ sync: row.id }, 'mirror: resuming a sync a stopped process left running');
    }
    let source;
    try {
      source = this.sources.get(row.sourceId);
    } catch {
      return this.fail(row.id, 'the source was deleted');
    }
    const mappings = this.sources.mappings(source.id);
    for (const m of mappings) {
      const target = this.ctx.repos.byId(m.targetRepoId);
      db.insert(mirrorSyncRepos).values({ syncId: row.id, sourceRepo: m.sourceRepo, target: target?.name ?? '', state: 'pending' }).onConflictDoNothing().run();
    }
    const progress: SyncProgress = { syncId: row.id, reposDone: 0, reposTotal: mappings.length };
    const failedRepos: string[] = [];
    try {
      signal.throwIfAborted(); // a cancel asked for before a restart ends the resumed sync at once
      const client = this.sources.client(source);
      for (const m of mappings) {
        const state = db.select().from(mirrorSyncRepos).where(and(eq(mirrorSyncRepos.syncId, row.id), eq(mirrorSyncRepos.sourceRepo, m.sourceRepo))).get()!;
        if (state.state === 'done') {
          progress.reposDone++; // finished before the restart
          continue;
        }
        const target = this.ctx.repos.byId(m.targetRepoId);
        if (!target) {
          failedRepos.push(m.sourceRepo);
          db.update(mirrorSyncRepos).set({ state: 'failed', error: 'the target repository no longer exists' }).where(and(eq(mirrorSyncRepos.syncId, row.id), eq(mirrorSyncRepos.sourceRepo, m.sourceRepo))).run();
          progress.reposDone++;
          continue;
        }
        // A resumed repository is listed again from the start: its listing-based counters and
        // failures restart; what it fetched (and its bytes) stays counted and is not fetched again.
        const counters: RepoCounters = { listed: 0, fetched: state.fetched, skipped: 0, deleted: state.deleted, failed: 0, bytes: state.bytes };
        if (run.resumed || state.state !== 'pending') db.delete(mirrorFailures).where(and(eq(mirrorFailures.syncId, row.id), eq(mirrorFailures.sourceRepo, m.sourceRepo))).run();
        db.update(mirrorSyncRepos).set({ state: 'running', error: '', ...counters }).where(and(eq(mirrorSyncRepos.syncId, row.id), eq(mirrorSyncRepos.sourceRepo, m.sourceRepo))).run();
        const report = (c: RepoCounters) => run.update({ ...progress, repo: m.sourceRepo, counters: { ...c } });
        report(counters);
        let repoState: SyncRepoRow['state'] = 'done';
        let error = '';
        try {
          await importRepo({ ctx: this.ctx, client, syncId: row.id, sourceId: source.id, sourceRepo: m.sourceRepo, target, concurrency: this.concurrency(), signal, counters, progress: report });
        } catch (err) {
          if (signal.aborted) throw err;
          repoState = 'failed';
          error = `${(err as Error).message}; nothing was deleted`;
          failedRepos.push(m.sourceRepo);
        }
        db.update(mirrorSyncRepos).set({ state: repoState, error }).where(and(eq(mirrorSyncRepos.syncId, row.id), eq(mirrorSyncRepos.sourceRepo, m.sourceRepo))).run();
        progress.reposDone++;
        run.update({ ...progress }, { flush: true });
      }
      signal.throwIfAborted(); // a cancel that came as the last repository ended still wins: no cut-over after it
    } catch (err) {
      if (run.cancelRequested) this.finish(row.id, 'cancelled');
      else if (!signal.aborted) this.finish(row.id, 'failed', (err as Error).message);
      // else a shutdown: the sync stays `running`, resumed with its job at the next start
      throw err;
    }
    if (failedRepos.length) this.fail(row.id, `could not list ${failedRepos.join(', ')}`);
    if (row.trigger === 'cutover') {
      const files = this.repos(row.id).reduce((n, x) => n + x.failed, 0);
      if (files > 0) this.fail(row.id, `cut-over not done: ${files} files were not imported (see failures); the repositories stay mirrored`);
      this.sources.markCutOver(source.id);
    }
    this.finish(row.id, 'done');
    return progress;
  }
}

import { and, desc, eq, inArray, type SQL } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { TroveDb } from '../db/open.js';
import { jobs, type JobRow } from '../db/schema.js';
import { conflict, notFound } from '../errors.js';

export type JobState = 'running' | 'cancelling' | 'done' | 'failed' | 'cancelled';

export interface JobRecord<P = unknown, G = unknown> {
  id: string;
  kind: string;
  key: string;
  state: JobState;
  payload: P;
  progress: G;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface JobRun<P = unknown, G = unknown> {
  /** The record as it was when this run began (on a resume: with the last saved progress). */
  readonly job: JobRecord<P, G>;
  readonly signal: AbortSignal;
  readonly resumed: boolean;
  /** True once a cancel was asked for (now or before a restart); false for a shutdown abort. */
  readonly cancelRequested: boolean;
  /** Records progress (the checkpoint a resume starts from). Persisted at most every 250 ms unless `flush`. */
  update(progress: G, opts?: { flush?: boolean }): void;
}

export type JobHandler<P = any, G = any> = (run: JobRun<P, G>) => Promise<G | void>;

const ACTIVE: JobState[] = ['running', 'cancelling'];
const FLUSH_MS = 250;
/** How soon the end of a job the database refused is written again. */
const FINISH_RETRY_MS = 2000;
/** A job's stored error message at most: a handler's error may quote whole answers. */
const MAX_ERROR_CHARS = 2000;

class CancelRequested extends Error {
  constructor() {
    super('cancelled');
  }
}

interface Live {
  record: JobRecord;
  abort: AbortController;
  cancelRequested: boolean;
  done: Promise<JobRecord>;
  lastFlush: number;
}

/** See `./index.ts` for the contract. */
export class JobRunner {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly live = new Map<string, Live>();
  private stopping = false;

  constructor(
    private readonly db: TroveDb,
    private readonly log: Logger,
  ) {}

  register<P, G>(kind: string, handler: JobHandler<P, G>): void {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    this.handlers.set(kind, handler as JobHandler);
  }

  start<P, G = unknown>(kind: string, key: string, payload: P, progress?: G): JobRecord<P, G> {
    if (!this.handlers.has(kind)) throw new Error(`no handler for job kind ${kind}`);
    if (this.stopping) throw conflict('the server is shutting down');
    const now = new Date();
    const row = this.db.transaction(
      (tx) => {
        const busy = tx.select({ id: jobs.id, kind: jobs.kind }).from(jobs).where(and(eq(jobs.key, key), inArray(jobs.state, ACTIVE))).get();
        if (busy) throw conflict(`a ${busy.kind} job is already running for ${key}`);
        return tx
          .insert(jobs)
          .values({ id: randomUUID(), kind, key, state: 'running', payload: JSON.stringify(payload ?? {}), progress: JSON.stringify(progress ?? {}), createdAt: now, updatedAt: now })
          .returning()
          .get();
      },
      { behavior: 'immediate' },
    );
    const record = toRecord(row);
    this.run(record, false, false);
    return record as JobRecord<P, G>;
  }

  get<P = unknown, G = unknown>(id: string): JobRecord<P, G> | undefined {
    const l = this.live.get(id);
    if (l) return { ...l.record } as JobRecord<P, G>;
    const row = this.db.select().from(jobs).where(eq(jobs.id, id)).get();
    return row ? (toRecord(row) as JobRecord<P, G>) : undefined;
  }

  /** The newest job of a kind and/or key, running or ended. */
  latest<P = unknown, G = unknown>(filter: { kind?: string; key?: string }): JobRecord<P, G> | undefined {
    const conds: SQL[] = [];
    if (filter.kind) conds.push(eq(jobs.kind, filter.kind));
    if (filter.key) conds.push(eq(jobs.key, filter.key));
    const row = this.db.select({ id: jobs.id }).from(jobs).where(and(...conds)).orderBy(desc(jobs.createdAt), desc(jobs.id)).limit(1).get();
    return row ? this.get<P, G>(row.id) : undefined;
  }

  /** The unfinished job holding `key`, if any. */
  active(key: string): JobRecord | undefined {
    const row = this.db.select({ id: jobs.id }).from(jobs).where(and(eq(jobs.key, key), inArray(jobs.state, ACTIVE))).get();
    return row ? this.get(row.id) : undefined;
  }

  async cancel(id: string): Promise<JobRecord> {
    const rec = this.get(id);
    if (!rec) throw notFound('no such job');
    if (!ACTIVE.includes(rec.state)) throw conflict(`the job has already ended (${rec.state})`);
    this.persist(id, { state: 'cancelling' });
    const l = this.live.get(id);
    if (!l) return this.get(id)!; // running on no runner here (another node, or not resumed): it ends on its resume
    l.record.state = 'cancelling';
    l.cancelRequested = true;
    l.abort.abort(new CancelRequested());
    return l.done;
  }

  async wait(id: string): Promise<JobRecord> {
    const l = this.live.get(id);
    if (l) return l.done;
    const rec = this.get(id);
    if (!rec) throw notFound('no such job');
    return rec;
  }

  /** Runs every unfinished job again; call once at start, after every kind is registered. */
  resumeAll(): void {
    const rows = this.db.select().from(jobs).where(inArray(jobs.state, ACTIVE)).orderBy(jobs.createdAt).all();
    for (const row of rows) {
      if (this.live.has(row.id)) continue;
      if (!this.handlers.has(row.kind)) {
        this.log.warn({ job: row.id, kind: row.kind }, 'unfinished job of an unknown kind left alone');
        continue;
      }
      this.log.info({ job: row.id, kind: row.kind, key: row.key }, 'resuming job');
      this.run(toRecord(row), true, row.state === 'cancelling');
    }
  }

  /** Aborts every running handler and waits for it; records stay unfinished so the next start resumes them. */
  async stop(): Promise<void> {
    this.stopping = true;
    const all = [...this.live.values()];
    for (const l of all) l.abort.abort(new Error('server stopping'));
    await Promise.allSettled(all.map((l) => l.done));
  }

  private run(record: JobRecord, resumed: boolean, cancelRequested: boolean): void {
    const handler = this.handlers.get(record.kind)!;
    const abort = new AbortController();
    setMaxListeners(0, abort.signal); // a handler passes its signal to every request it makes in parallel
    const live: Live = { record: { ...record }, abort, cancelRequested, done: undefined as unknown as Promise<JobRecord>, lastFlush: 0 };
    if (cancelRequested) abort.abort(new CancelRequested());
    const run: JobRun = {
      job: record,
      signal: abort.signal,
      resumed,
      get cancelRequested() {
        return live.cancelRequested;
      },
      update: (progress, opts) => {
        live.record.progress = progress;
        live.record.updatedAt = new Date();
        const now = Date.now();
        if (opts?.flush || now - live.lastFlush >= FLUSH_MS) {
          live.lastFlush = now;
          this.persist(record.id, { progress });
        }
      },
    };
    this.live.set(record.id, live);
    live.done = (async () => {
      // A later turn: the caller of start() finishes what it was doing (e.g. saving settings) first.
      await new Promise((r) => setImmediate(r));
      let outcome: Partial<JobRecord>;
      try {
        const result = await handler(run);
        outcome = { state: 'done', progress: result === undefined ? live.record.progress : result };
      } catch (err) {
        outcome = live.cancelRequested
          ? { state: 'cancelled', progress: live.record.progress }
          : { state: 'failed', error: (err as Error)?.message ?? String(err), progress: live.record.progress };
      }
      this.live.delete(record.id);
      if (this.stopping && !live.cancelRequested) {
        try {
          this.persist(record.id, { progress: live.record.progress }); // left running: the next start resumes it
        } catch (err) {
          this.log.warn({ err, job: record.id }, 'could not save the checkpoint of a job left for the next start');
        }
        return { ...live.record };
      }
      if (live.cancelRequested) outcome.state = 'cancelled';
      if (outcome.error) outcome.error = outcome.error.slice(0, MAX_ERROR_CHARS);
      if (outcome.state === 'failed') this.log.error({ job: record.id, kind: record.kind, error: outcome.error }, 'job failed');
      this.finish(record.id, outcome);
      return this.get(record.id) ?? { ...live.record };
    })();
  }

  /**
   * Records a job's end. Nothing awaits a job's run, so a throw here would end the process: an
   * outcome that cannot be stored (progress JSON cannot hold) ends the job failed instead, and a
   * database that refuses every write leaves it unfinished, to run again at the next start.
   */
  private finish(id: string, outcome: Partial<JobRecord>): void {
    const finishedAt = new Date();
    try {
      this.persist(id, { ...outcome, finishedAt });
      return;
    } catch (err) {
      this.log.error({ err, job: id }, 'could not record the end of a job');
    }
    try {
      const error = `the job ended ${outcome.state}, but its outcome could not be recorded`;
      this.persist(id, { state: 'failed', error: outcome.error ? `${error}: ${outcome.error}`.slice(0, MAX_ERROR_CHARS) : error, finishedAt });
    } catch {
      // The database refuses writes (a full disk, a lock): tried again until it takes them. Meanwhile
      // the record reads `running`, so its key stays taken; the next start resumes it if this process ends first.
      if (!this.stopping) setTimeout(() => this.finish(id, outcome), FINISH_RETRY_MS).unref();
    }
  }

  private persist(id: string, patch: Partial<Pick<JobRecord, 'state' | 'progress' | 'error' | 'finishedAt'>>): void {
    const set: Partial<JobRow> = { updatedAt: new Date() };
    if (patch.state) set.state = patch.state;
    if (patch.progress !== undefined) set.progress = JSON.stringify(patch.progress);
    if (patch.error !== undefined) set.error = patch.error;
    if (patch.finishedAt) set.finishedAt = patch.finishedAt;
    this.db.update(jobs).set(set).where(eq(jobs.id, id)).run();
  }
}

function toRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind,
    key: row.key,
    state: row.state,
    payload: JSON.parse(row.payload),
    progress: JSON.parse(row.progress),
    error: row.error,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    finishedAt: row.finishedAt,
  };
}

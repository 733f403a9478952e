/**
 * The job facility: long-running background work that survives a restart.
 * Built once for the storage move, the mirror's syncs and (later) Debian rebuilds.
 *
 * API (`ctx.jobs`, a `JobRunner`; exported from `@trove/core`):
 *
 *   jobs.register<P, G>(kind, handler)   one handler per kind, before `resumeAll()`.
 *   jobs.start(kind, key, payload, progress?)  persists a `running` record and runs the handler
 *                                         on a later turn of the event loop; returns the record.
 *                                         Throws 409 (conflict) while another job with the same
 *                                         `key` is running or cancelling (one runner per key,
 *                                         also enforced by a partial unique index).
 *   jobs.get(id) / jobs.latest({kind?, key?}) / jobs.active(key)
 *                                         records (live progress for a running one); undefined when none.
 *   jobs.cancel(id)                       409 when ended; else persists `cancelling`, aborts the
 *                                         handler's signal and resolves with the final record once
 *                                         the handler has settled (`cancelled`).
 *   jobs.wait(id)                         resolves with the record once the job has ended here.
 *   jobs.resumeAll()                      at start: runs every `running`/`cancelling` record of a
 *                                         registered kind again (`run.resumed` true, progress = last
 *                                         checkpoint). Safe to call from each subsystem's start():
 *                                         a job already running here is left alone.
 *   jobs.stop()                           at shutdown: aborts running handlers and waits; their
 *                                         records stay `running`, so the next start resumes them.
 *
 *   handler(run): Promise<G | void>       `run.job` (the record: payload, last progress),
 *                                         `run.signal` (aborted on cancel or shutdown),
 *                                         `run.cancelRequested` (true: cancel, false: shutdown),
 *                                         `run.update(progress, {flush?})` (checkpoint; persisted at
 *                                         most every 250 ms unless `flush`), `run.resumed`.
 *   Ending: returning ends the job `done` (a returned value becomes the final progress);
 *   throwing ends it `failed` with the error's message (at most 2,000 characters). After a
 *   cancel it ends `cancelled` whether the handler throws or returns: a handler may stop early
 *   and return what it has, which is no `done`. After a shutdown abort the record is left
 *   `running` whatever the handler does. An outcome the database cannot take (progress that is
 *   not JSON) ends the job `failed`; an end the database refuses is written again every 2 s
 *   (the record reads `running` meanwhile, and a restart first resumes the job).
 *
 * Records: `{id, kind, key, state, progress, payload, error, createdAt, updatedAt, finishedAt}`,
 * states `running | cancelling | done | failed | cancelled`. Payload and progress are JSON and
 * must never hold secrets (API answers are built from them).
 */
export { JobRunner, type JobHandler, type JobRecord, type JobRun, type JobState } from './runner.js';

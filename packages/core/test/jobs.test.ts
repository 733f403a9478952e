import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { applyMigrations, coreMigrations, defineModule, JobRunner, openDatabase, type JobRun } from '../src/index.js';
import { startTestServer } from '../src/testing/server.js';

const log = pino({ level: 'silent' });

function openRunner(file = join(mkdtempSync(join(tmpdir(), 'trove-jobs-')), 'trove.db')) {
  const { db, sqlite } = openDatabase(file);
  applyMigrations(db, [coreMigrations]);
  return { jobs: new JobRunner(db, log), sqlite, file };
}

/** A handler that counts to `to`, one step per `tick`, checkpointing each step, until aborted. */
function counter(to: number, tick = 5) {
  return async (run: JobRun<{ to: number }, { n: number }>) => {
    let n = run.job.progress.n ?? 0;
    while (n < to) {
      await new Promise((r) => setTimeout(r, tick));
      run.signal.throwIfAborted();
      n++;
      run.update({ n }, { flush: true });
    }
    return { n };
  };
}

describe('job facility', () => {
  it('runs a job to done with its progress persisted', async () => {
    const { jobs } = openRunner();
    jobs.register('count', counter(5));
    const rec = jobs.start('count', 'k', { to: 5 });
    expect(rec.state).toBe('running');
    const end = await jobs.wait(rec.id);
    expect(end).toMatchObject({ state: 'done', progress: { n: 5 }, payload: { to: 5 } });
    expect(end.finishedAt).toBeInstanceOf(Date);
    expect(jobs.latest({ kind: 'count' })?.id).toBe(rec.id);
  });

  it('refuses a second job with the same key while one runs, and allows it after', async () => {
    const { jobs } = openRunner();
    jobs.register('count', counter(3));
    const a = jobs.start('count', 'same', {});
    expect(() => jobs.start('count', 'same', {})).toThrow(expect.objectContaining({ status: 409 }));
    const other = jobs.start('count', 'other', {}); // another key runs alongside
    await jobs.wait(a.id);
    await jobs.wait(other.id);
    const b = jobs.start('count', 'same', {});
    expect((await jobs.wait(b.id)).state).toBe('done');
  });

  it('cancels a running job and answers 409 for a cancel of an ended one', async () => {
    const { jobs } = openRunner();
    jobs.register('count', counter(1000));
    const rec = jobs.start('count', 'k', {});
    await new Promise((r) => setTimeout(r, 30));
    const end = await jobs.cancel(rec.id);
    expect(end.state).toBe('cancelled');
    expect((end.progress as { n: number }).n).toBeGreaterThan(0);
    await expect(jobs.cancel(rec.id)).rejects.toMatchObject({ status: 409 });
  });

  it('records a throwing handler as failed with its message', async () => {
    const { jobs } = openRunner();
    jobs.register('boom', async () => {
      throw new Error('disk on fire');
    });
    const rec = jobs.start('boom', 'k', {});
    expect(await jobs.wait(rec.id)).toMatchObject({ state: 'failed', error: 'disk on fire' });
  });

  it('ends failed, not running, when its outcome cannot be recorded; a long error is cut', async () => {
    const { jobs } = openRunner();
    jobs.register('bigint', async () => ({ n: 10n })); // progress is JSON: a BigInt cannot be stored
    const rec = jobs.start('bigint', 'k', {});
    const end = await jobs.wait(rec.id);
    expect(end.state).toBe('failed');
    expect(end.error).toMatch(/could not be recorded/);
    jobs.register('long', async () => {
      throw new Error('x'.repeat(100_000));
    });
    const long = await jobs.wait(jobs.start('long', 'k2', {}).id);
    expect(long.state).toBe('failed');
    expect(long.error!.length).toBeLessThanOrEqual(2000);
  });

  it('settles its wait when the database refuses the final record, and writes it once the database takes it', async () => {
    const { jobs, sqlite } = openRunner();
    let release!: () => void;
    jobs.register('slow', () => new Promise<void>((r) => (release = r)));
    const rec = jobs.start('slow', 'k', {});
    await new Promise((r) => setTimeout(r, 20));
    sqlite.exec('CREATE TRIGGER no_finish BEFORE UPDATE ON jobs BEGIN SELECT RAISE(FAIL, \'database or disk is full\'); END');
    release();
    const end = await jobs.wait(rec.id);
    expect(end.state).toBe('running'); // unfinished in the database: a restart now would run it again
    expect(() => jobs.start('slow', 'k', {})).toThrow(); // its key stays taken meanwhile
    sqlite.exec('DROP TRIGGER no_finish'); // the disk has room again: the end is written
    await expect.poll(() => jobs.get(rec.id)?.state, { timeout: 5000, interval: 100 }).toBe('done');
    expect(jobs.active('k')).toBeUndefined();
  });

  it('resumes an unfinished job from its checkpoint after a restart', async () => {
    const first = openRunner();
    first.jobs.register('count', counter(40));
    const rec = first.jobs.start('count', 'k', { to: 40 });
    await new Promise((r) => setTimeout(r, 60));
    await first.jobs.stop(); // shutdown: the record stays running
    first.sqlite.close();

    const second = openRunner(first.file);
    const seen: { resumed: boolean; from: number }[] = [];
    second.jobs.register('count', async (run: JobRun<{ to: number }, { n: number }>) => {
      seen.push({ resumed: run.resumed, from: run.job.progress.n });
      return counter(40, 1)(run);
    });
    expect(second.jobs.get(rec.id)?.state).toBe('running');
    second.jobs.resumeAll();
    const end = await second.jobs.wait(rec.id);
    expect(end).toMatchObject({ state: 'done', progress: { n: 40 } });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.resumed).toBe(true);
    expect(seen[0]!.from).toBeGreaterThan(0);
  });

  it('finishes a cancel asked for before a restart on resume', async () => {
    const first = openRunner();
    first.jobs.register('count', counter(1000));
    const rec = first.jobs.start('count', 'k', {});
    await first.jobs.stop();
    // Another node (or a crash) left the cancel request unfinished.
    const { db } = openDatabase(first.file);
    const { jobs: other } = { jobs: new JobRunner(db, log) };
    await other.cancel(rec.id); // no live runner here: just recorded
    first.sqlite.close();

    const second = openRunner(first.file);
    let sawCancel = false;
    second.jobs.register('count', async (run: JobRun) => {
      sawCancel = run.cancelRequested && run.signal.aborted;
      run.signal.throwIfAborted();
    });
    second.jobs.resumeAll();
    expect((await second.jobs.wait(rec.id)).state).toBe('cancelled');
    expect(sawCancel).toBe(true);
  });
});

describe('job facility in the server lifecycle', () => {
  it('ends running jobs at shutdown before any module stops: a job never writes through a stopped module', async () => {
    const events: string[] = [];
    const store = defineModule({ name: 'store', create: () => ({ stop: async () => void events.push('store stopped') }) });
    const worker = defineModule({
      name: 'worker',
      after: ['store'],
      create: (ctx) => {
        ctx.jobs.register('fill', async (run: JobRun) => {
          await new Promise<void>((resolve) => run.signal.addEventListener('abort', () => resolve(), { once: true }));
          await new Promise((r) => setTimeout(r, 20)); // the handler's last writes after its abort
          events.push('job ended');
          run.signal.throwIfAborted();
        });
        return { start: () => void ctx.jobs.start('fill', 'k', {}) };
      },
    });
    const s = await startTestServer({ modules: [store, worker] });
    await new Promise((r) => setTimeout(r, 20));
    await s.close();
    expect(events).toEqual(['job ended', 'store stopped']);
  });
});

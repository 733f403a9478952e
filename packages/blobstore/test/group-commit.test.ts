import { describe, expect, it } from 'vitest';
import { groupCommit } from '../src/index.js';

/** A flush that the test ends by hand; each run records when it began. */
function manualFlush() {
  const runs: { began: number; end: (fail?: boolean) => void }[] = [];
  let clock = 0;
  const work = () =>
    new Promise<number>((resolve, reject) => {
      const began = ++clock;
      runs.push({ began, end: (fail) => (fail ? reject(new Error(`run ${began} failed`)) : resolve(began)) });
    });
  return { runs, work, now: () => clock };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('groupCommit', () => {
  it('answers a caller that arrives during a run with the next run, shared by all who wait', async () => {
    const f = manualFlush();
    const flush = groupCommit(f.work);
    const first = flush();
    const waiting = Array.from({ length: 10 }, () => flush());
    expect(f.runs).toHaveLength(1); // nothing starts while the first runs
    f.runs[0]!.end();
    expect(await first).toBe(1);
    await tick();
    expect(f.runs).toHaveLength(2); // one run for all ten
    f.runs[1]!.end();
    expect(await Promise.all(waiting)).toEqual(Array(10).fill(2));
  });

  it('never runs twice at once, even for a caller arriving as a run ends', async () => {
    const f = manualFlush();
    const flush = groupCommit(f.work);
    const first = flush();
    const second = flush();
    // Called from the first caller's continuation: the run has ended, its follower has not begun.
    const third = first.then(() => flush());
    f.runs[0]!.end();
    await first;
    await tick();
    expect(f.runs).toHaveLength(2);
    f.runs[1]!.end();
    expect([await second, await third]).toEqual([2, 2]);
  });

  it('fails only the callers of a failed run; the next run still happens', async () => {
    const f = manualFlush();
    const flush = groupCommit(f.work);
    const first = flush();
    const second = flush();
    f.runs[0]!.end(true);
    await expect(first).rejects.toThrow('run 1 failed');
    await tick();
    f.runs[1]!.end();
    expect(await second).toBe(2);
  });
});

/**
 * Group commit: runs `work` (a flush) one run at a time, and answers each caller with the outcome
 * of a run that began after its call. A run under way may have begun before a caller's write, so
 * callers arriving meanwhile share the next run; however many wait, that is one run.
 * Used for the fs store's filesystem flushes and core's flushes of the database's WAL.
 */
export function groupCommit<T>(work: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;

  const start = (): Promise<T> => {
    const run = work();
    const tracked = run.finally(() => {
      if (running === tracked) running = undefined;
    });
    tracked.catch(() => {}); // callers get `run`'s error; this copy only orders the next run
    running = tracked;
    return run;
  };

  return () => {
    if (queued) return queued; // it has not begun, so it begins after this call
    if (!running) return start();
    const next = () => {
      queued = undefined;
      return start();
    };
    queued = running.then(next, next);
    return queued;
  };
}

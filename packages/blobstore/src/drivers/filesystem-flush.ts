import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { groupCommit } from '../group-commit.js';

/**
 * The least time between two flushes. Each one forks `sync` in the helper (about a millisecond of
 * CPU), and the files that arrive meanwhile share the next one: on a 10,000-file import 20 ms gave
 * batches of 30-60 files and the most files per second of 5, 10, 20 and 40 (bench/mirror-import.mjs).
 */
const GAP_MS = 20;

/**
 * Group commit for many small files: one `syncfs(2)` of the filesystem makes every file written and
 * every rename done before it began durable, at the cost of one device flush instead of two fsyncs
 * per file. Node has no binding for syncfs, so a long-lived shell runs coreutils' `sync -f` once
 * per line it reads (forking Node itself for each flush cost 5 ms of the server's CPU).
 * Where that is not available (not Linux, no `sync -f`) or a flush fails (a writeback error), every
 * later call answers false and the caller flushes file by file, which reports the error itself.
 * The flush covers the whole filesystem, other programs' writes included: on a filesystem busy with
 * other work a flush takes longer, and more files then share it.
 */
export interface FilesystemFlush {
  /**
   * True once a flush of the filesystem holding `dir` that began after this call has completed;
   * false when such flushes cannot be had here.
   */
  flush(): Promise<boolean>;
  /** Flushes completed so far (for tests and status). */
  readonly flushes: number;
  /** Ends the helper; later calls answer false. */
  close(): void;
}

/** `onGiveUp` hears once why flushes stopped working (not on `close`, nor where they never could: not Linux). */
export function filesystemFlush(dir: string, gapMs = GAP_MS, onGiveUp?: (reason: string) => void): FilesystemFlush {
  let usable = process.platform === 'linux';
  let helper: ChildProcess | undefined;
  let flushes = 0;
  const waiting: ((ok: boolean) => void)[] = [];
  let lastStart = -Infinity;

  const giveUp = (reason?: string) => {
    if (usable && reason) onGiveUp?.(reason);
    usable = false;
    helper?.kill();
    helper = undefined;
    for (const answer of waiting.splice(0)) answer(false);
  };

  const helperProcess = (): ChildProcess => {
    if (helper) return helper;
    // The directory is the shell's $0, never part of the script.
    const child = spawn('sh', ['-c', 'while read -r _; do sync -f "$0"; echo $?; done', dir], { stdio: ['pipe', 'pipe', 'ignore'] });
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      pending += text;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const status = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (status !== '0') return giveUp(status === '127' ? "coreutils' `sync -f` was not found" : `\`sync -f ${dir}\` failed (exit status ${status})`);
        flushes++;
        waiting.shift()?.(true);
      }
    });
    child.on('error', (err) => giveUp(`the flush helper (sh) could not start: ${err.message}`));
    child.on('exit', (code, signal) => helper === child && giveUp(`the flush helper (sh) ended (${signal ?? `exit status ${code}`})`));
    child.stdin!.on('error', (err) => giveUp(`the flush helper's input failed: ${err.message}`));
    // Never what keeps the server running: at its exit the shell reads end-of-file and ends too.
    child.unref();
    (child.stdin as unknown as Socket).unref();
    (child.stdout as unknown as Socket).unref();
    helper = child;
    return child;
  };

  const once = async (): Promise<boolean> => {
    const wait = lastStart + gapMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastStart = performance.now();
    if (!usable) return false;
    return new Promise<boolean>((resolve) => {
      waiting.push(resolve);
      helperProcess().stdin!.write('\n');
    });
  };

  const shared = groupCommit(once);

  return {
    flush() {
      return usable ? shared() : Promise.resolve(false);
    },
    get flushes() {
      return flushes;
    },
    close: () => giveUp(),
  };
}

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** VmHWM (peak RSS) and VmRSS of a process, in bytes, from /proc/<pid>/status. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : NaN;
  };
  return { hwm: kib('VmHWM'), rss: kib('VmRSS') };
}

/**
 * CPU time (user + system) a process has used so far, in seconds, from /proc/<pid>/stat, with that
 * of its live children and of the children they have reaped: the fs blob store's flush helper (a
 * shell that runs `sync -f`) works for the server, on the server's core.
 */
export function cpuSeconds(pid) {
  const ticks = (p, withReaped) => {
    const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]) + (withReaped ? Number(f[13]) + Number(f[14]) : 0); // utime stime cutime cstime
  };
  let total = ticks(pid, false); // the server's own reaped children (none it keeps) are not part of a run
  for (const child of childrenOf(pid)) {
    try {
      total += ticks(child, true);
    } catch {
      // ended since it was listed
    }
  }
  return total / 100; // clock ticks; USER_HZ is 100 on Linux
}

function childrenOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean));
  } catch {
    return [];
  }
}

/**
 * Waits until a process has been idle (under `share` of one core) for one `windowMs`, at most
 * `maxMs`: a fresh server does one-time work in the background (the Debian signing key, RSA
 * 4096, takes a second or more of CPU) that is not part of what a benchmark measures. Returns
 * the milliseconds waited.
 */
export async function settled(pid, { windowMs = 250, share = 0.05, maxMs = 30_000 } = {}) {
  const started = performance.now();
  for (;;) {
    const before = cpuSeconds(pid);
    await sleep(windowMs);
    if ((cpuSeconds(pid) - before) * 1000 <= windowMs * share || performance.now() - started > maxMs) return performance.now() - started;
  }
}

/**
 * Resets VmHWM to the current RSS (writing 5 to /proc/<pid>/clear_refs), so the next
 * peak belongs to the run being measured, not to start-up (scrypt for the bootstrap
 * admin alone peaks far above idle). Returns false where the kernel refuses it.
 */
export function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Samples VmRSS every `everyMs` until stopped: shows whether memory stays flat
 * during a long transfer (VmHWM alone only tells the peak).
 */
export function sampleRss(pid, everyMs = 100) {
  const samples = [];
  const timer = setInterval(() => {
    try {
      samples.push(memoryOf(pid).rss);
    } catch {
      /* process gone */
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return samples;
    },
  };
}

/** Runs a command to completion and returns {code, stdout, stderr}; rejects only if it cannot start. */
export function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Like run(), but a non-zero exit is an error carrying stderr. */
export async function runOk(cmd, args, opts = {}) {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r;
}

/** Stops a child we started: SIGTERM, then SIGKILL after `graceMs`. Resolves with the exit code. */
export function stopChild(child, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

const children = new Set();
/** Children registered here are killed if the bench process exits early (error, Ctrl-C). */
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The machine's load right now, for the record: figures on a shared 2-core box drift with it. */
export function loadAverage() {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

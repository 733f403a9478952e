import { readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { BootError } from './boot.js';

/** How often a running server touches its lock, and how old a lock must be to count as left by a dead one. */
const HEARTBEAT_MS = 10_000;
const STALE_MS = 3 * HEARTBEAT_MS;

interface Holder {
  pid: number;
  host: string;
  since: string;
}

export interface DataDirLock {
  release(): void;
}

/**
 * One data directory serves one server (Nexus keeps a lock file for the same reason). A second
 * server on it would clear the first one's upload spool at start, and both would resume the same
 * background jobs (a storage move, a mirror sync) at once. The lock names its holder and is
 * touched every 10 s; it is taken over when its holder is gone: a process of this host that no
 * longer exists (a kill, a crash), this very process id (a container restarted, pid 1 again), or
 * no touch for 30 s (a holder on another host of a shared volume).
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, 'trove.lock');
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const body = JSON.stringify(me) + '\n';
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, body, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) {
        throw new BootError(`TR_DATA_DIR: cannot lock ${dataDir} (${(err as Error).message})`);
      }
    }
    const holder = readHolder(file);
    if (!isStale(file, holder)) {
      throw new BootError(
        `TR_DATA_DIR: ${dataDir} is in use by another Trove server (pid ${holder.pid} on ${holder.host}, since ${holder.since}); ` +
          `one data directory serves one server. If no server uses it, delete ${file}.`,
      );
    }
    try {
      unlinkSync(file);
    } catch {
      // gone meanwhile: the next attempt creates it
    }
  }
  const heartbeat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // a removed lock is taken again by no one but a new start, which finds this server's process alive
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    release() {
      clearInterval(heartbeat);
      try {
        if (readFileSync(file, 'utf8') === body) unlinkSync(file);
      } catch {
        // already gone
      }
    },
  };
}

function readHolder(file: string): Holder {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
    if (typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.since === 'string') return h as Holder;
  } catch {
    // unreadable or half-written: judged by its age alone
  }
  return { pid: 0, host: 'an unknown host', since: 'an unknown time' };
}

function isStale(file: string, holder: Holder): boolean {
  let age: number;
  try {
    age = Date.now() - statSync(file).mtimeMs;
  } catch {
    return true;
  }
  if (age > STALE_MS) return true;
  if (holder.host !== hostname() || holder.pid <= 0) return false;
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

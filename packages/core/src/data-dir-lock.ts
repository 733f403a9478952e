import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { BootError } from './boot.js';

/** How often a running server touches its lock, and how old a lock must be to count as left by a dead one. */
const HEARTBEAT_MS = 10_000;
const STALE_MS = 3 * HEARTBEAT_MS;

interface Holder {
  pid: number;
  host: string;
  /** The holder's pid namespace (`/proc/self/ns/pid`): a pid means something only inside its own. */
  ns: string;
  since: string;
  /** This start's own mark: a lock is released only by the start that wrote it. */
  nonce: string;
}

export interface DataDirLock {
  release(): void;
}

/** Lock files this process holds: a second core on one directory in one process is refused too. */
const heldHere = new Set<string>();

function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return ''; // not Linux: the holder's pid cannot be checked, only the lock's age
  }
}

/**
 * One data directory serves one server (Nexus keeps a lock file for the same reason). A second
 * server on it would clear the first one's upload spool at start, and both would resume the same
 * background jobs (a storage move, a mirror sync) at once. The lock names its holder and is
 * touched every 10 s. It is taken over at once when its holder is a process of this host and pid
 * namespace that no longer runs (a kill, a crash). A holder this start cannot check (another host
 * of a shared volume, another container: a restarted container has a new pid namespace) is waited
 * for: its lock is left by a dead server once it goes 30 s without a touch; a live one keeps
 * touching it, and this start then refuses.
 */
export async function lockDataDir(dataDir: string, opts: { staleMs?: number } = {}): Promise<DataDirLock> {
  const staleMs = opts.staleMs ?? STALE_MS;
  const file = join(dataDir, 'trove.lock');
  const me: Holder = { pid: process.pid, host: hostname(), ns: pidNamespace(), since: new Date().toISOString(), nonce: randomBytes(12).toString('hex') };
  const body = JSON.stringify(me) + '\n';
  const giveUpAt = Date.now() + staleMs * 1.2; // a live holder touched it meanwhile: more than its whole span
  for (;;) {
    try {
      writeFileSync(file, body, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new BootError(`TR_DATA_DIR: cannot lock ${dataDir} (${(err as Error).message})`);
    }
    const holder = readHolder(file);
    const verdict = judge(file, holder, me, staleMs);
    if (verdict === 'alive' || (verdict === 'unknown' && Date.now() >= giveUpAt)) {
      throw new BootError(
        `TR_DATA_DIR: ${dataDir} is in use by another Trove server (pid ${holder.pid} on ${holder.host}, since ${holder.since}); ` +
          `one data directory serves one server. If no server uses it, delete ${file}.`,
      );
    }
    if (verdict === 'unknown') {
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    try {
      unlinkSync(file);
    } catch {
      // gone meanwhile: the next round creates it
    }
  }
  heldHere.add(file);
  const heartbeat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // the file went away: a new start finds this process alive and refuses anyway
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    release() {
      clearInterval(heartbeat);
      heldHere.delete(file);
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
    if (typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.since === 'string') return { ns: '', nonce: '', ...h } as Holder;
  } catch {
    // unreadable, or being written this very moment: judged by its age alone
  }
  return { pid: 0, host: 'an unknown host', ns: '', since: 'an unknown time', nonce: '' };
}

/** `stale`: left by a server that is gone; `alive`: held by a running one; `unknown`: only its age can tell. */
function judge(file: string, holder: Holder, me: Holder, staleMs: number): 'stale' | 'alive' | 'unknown' {
  let age: number;
  try {
    age = Date.now() - statSync(file).mtimeMs;
  } catch {
    return 'stale';
  }
  if (age > staleMs) return 'stale';
  if (holder.pid <= 0 || holder.host !== me.host || !holder.ns || holder.ns !== me.ns) return 'unknown';
  // Our own pid in our own namespace: this process (a second core here), or a dead one whose pid we got.
  if (holder.pid === me.pid) return heldHere.has(file) ? 'alive' : 'stale';
  try {
    process.kill(holder.pid, 0);
    return 'alive';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH' ? 'stale' : 'alive';
  }
}

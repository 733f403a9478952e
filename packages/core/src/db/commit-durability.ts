import { groupCommit } from '@trove/blobstore';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Makes committed transactions survive an OS crash or power cut before a write is acknowledged,
 * without holding the event loop for the disk.
 *
 * The connection commits with `synchronous = NORMAL`: SQLite does not fsync the WAL on each commit,
 * so a power cut can roll back the last commits (never corrupt the file). With `FULL` it would fsync
 * inside the commit, and better-sqlite3 commits on the event loop: every reader would wait for the
 * disk's cache flush on every write (milliseconds on cloud volumes). Instead `settled()` waits, on
 * libuv's pool, for an fdatasync of the WAL begun after the call; writes that arrive while one runs
 * share the next. The HTTP layer calls it before answering any write request (`durableWrites`).
 *
 * PostgreSQL commits durably by itself: its counterpart would resolve at once.
 */
export interface CommitDurability {
  /** Resolves once every transaction committed before the call is on disk. */
  settled(): Promise<void>;
  /** WAL flushes begun so far (tests, status). */
  readonly flushes: number;
  close(): void;
}

/**
 * `walFile` is the database's `-wal` file (null for an in-memory database: nothing to flush);
 * `changes` counts the rows this connection has changed (SQLite's `total_changes()`), so a write
 * request that changed nothing, and a second one whose commit an earlier flush covered, cost nothing.
 */
export function walDurability(walFile: string | null, changes: () => number): CommitDurability {
  let flushedUpTo = changes();
  let flushes = 0;
  /** The WAL as opened: kept open (one call per flush), reopened when SQLite has replaced the file. */
  let wal: { file: FileHandle; ino: number } | undefined;
  let closed = false;

  const missing = (err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  };

  /** The open WAL, or null when there is none (before the first write, or after a close checkpointed it away). */
  async function openWal(): Promise<FileHandle | null> {
    const st = await stat(walFile!).catch(missing);
    if (!st) return null;
    if (wal?.ino === st.ino) return wal.file;
    void wal?.file.close().catch(() => {});
    wal = undefined;
    const file = await open(walFile!, 'r').catch(missing);
    if (!file) return null;
    try {
      const { ino } = await file.stat();
      // A new WAL's name must survive too: without a journal (ext4 nojournal) nothing else orders it.
      await syncDirectory(dirname(walFile!));
      if (closed) {
        // Closing the database checkpoints the WAL into the synced database file: nothing left for us.
        await file.close();
        return null;
      }
      wal = { file, ino };
      return file;
    } catch (err) {
      await file.close().catch(() => {});
      throw err;
    }
  }

  async function syncDirectory(path: string): Promise<void> {
    const dir = await open(path, 'r');
    try {
      await dir.sync();
    } catch (err) {
      // Some filesystems cannot fsync a directory at all (PostgreSQL's fsync_fname ignores the same two errors).
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EINVAL' && code !== 'EBADF') throw err;
    } finally {
      await dir.close();
    }
  }

  const flush = groupCommit(async () => {
    const upTo = changes();
    flushes++;
    const file = await openWal();
    await file?.datasync();
    flushedUpTo = Math.max(flushedUpTo, upTo);
  });

  return {
    get flushes() {
      return flushes;
    },
    settled() {
      if (walFile === null || changes() <= flushedUpTo) return Promise.resolve();
      return flush();
    },
    close() {
      closed = true;
      void wal?.file.close().catch(() => {});
      wal = undefined;
    },
  };
}

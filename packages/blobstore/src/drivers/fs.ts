import { randomUUID } from 'node:crypto';
import { close as closeFd, createReadStream, createWriteStream, open as openFd, read as readFd, stat as statCb } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BlobDriver, BlobReader, BlobSource } from '../types.js';
import { fsyncPath, keyDirectories } from './directory-sync.js';
import { filesystemFlush } from './filesystem-flush.js';

export interface FsDriverOptions {
  /** Directory holding the blobs. Created on first use. */
  root: string;
  /** Told, once, when imports go back from shared filesystem flushes to an fsync per file (a slowdown, not a risk). */
  warn?: (message: string) => void;
}

const TMP = '.tmp';

/**
 * Blobs as plain files under `root`. Every put follows the same steps so a crash can never
 * leave a partial file under a real key:
 *  1. a spool file (the common case, fsynced by the spool or through `source.sync`) is renamed straight onto the key's
 *     path: it was never visible, so it needs no second name; a stream (or a spool on another
 *     filesystem) is first written to `root/.tmp/<random>` and fsynced there;
 *  2. the rename onto the key's path is atomic within one filesystem;
 *  3. the key's directory is fsynced so the rename itself survives a power loss.
 * A spool file not yet flushed (a mirror import's small files) is made durable with many others
 * instead: one flush of the filesystem before the rename (its bytes) and one after (its name),
 * see `filesystemFlush`; where those are not available, as above.
 * The key's directory is created only when the rename says it is missing: most puts land in
 * one of the 256 fan-out directories that already exist.
 */
export function fsDriver(opts: FsDriverOptions): BlobDriver {
  const root = resolve(opts.root);
  const tmpDir = join(root, TMP);
  /**
   * Directory creations whose new entries are not yet flushed into their parents. A put that
   * lands in a directory another put has just made (its rename finds the directory there, or its
   * own mkdir finds it made) waits for these before it counts as stored: otherwise it could be
   * acknowledged while the directory holding it could still vanish in a power cut.
   */
  const making = new Set<Promise<void>>();
  const keyDirs = keyDirectories();
  const together = filesystemFlush(root, undefined, (reason) =>
    opts.warn?.(`blob store: shared filesystem flushes stopped (${reason}); imported files are now fsynced one by one until restart`),
  );
  let rootMade: Promise<unknown> | undefined;

  const pathOf = (key: string): string => {
    const p = resolve(root, key);
    if (!p.startsWith(root + sep) || key.split('/').some((s) => s === '..' || s === '' || s === TMP)) {
      throw new Error(`invalid blob key: ${key}`);
    }
    return p;
  };

  /**
   * Opened with the callback API: a plain fd reads through the classic binding, measurably
   * cheaper per small GET than a FileHandle (bench W1). null for a missing blob.
   */
  const openForRead = (path: string) =>
    new Promise<number | null>((resolve, reject) =>
      openFd(path, 'r', (err, fd) => (err ? (err.code === 'ENOENT' ? resolve(null) : reject(err)) : resolve(fd))),
    );

  /**
   * Renames `from` onto `target`, creating the target's directory when the rename finds it missing.
   * A directory made here survives a power cut only once the directory holding its entry is flushed
   * too (without a journal, ext4 does not order that for us), so each new entry's parent is fsynced;
   * the target's own directory is fsynced by `put` after the rename.
   */
  async function renameInto(from: string, target: string): Promise<void> {
    try {
      await rename(from, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const dir = dirname(target);
      keyDirs.forget(dir); // gone: a descriptor kept for it names a directory no longer there
      await makeDirectory(dir);
      await rename(from, target); // still ENOENT: `from` itself is gone, and that is the error
    }
  }

  /**
   * `mkdir -p` of `dir` whose new entries are flushed into their parents (see `renameInto`), the root's
   * own entry included when this makes the root: the temp directory and a spool file's first rename
   * make it too. Registered before the mkdir is issued, so no other put can find the directory
   * without finding this entry in `making`.
   */
  async function makeDirectory(dir: string): Promise<void> {
    const made = (async () => {
      const firstCreated = await mkdir(dir, { recursive: true });
      if (firstCreated !== undefined) await flushNewDirectories(firstCreated, dir);
    })();
    making.add(made);
    try {
      await made;
    } finally {
      making.delete(made);
    }
  }

  /** Waits for the directory creations in flight now (see `making`); a failed one fails its own put, not this one. */
  async function directoriesFlushed(): Promise<void> {
    if (making.size > 0) await Promise.allSettled([...making]);
  }

  /** fsyncs the parent of every directory from `firstCreated` down to `deepest` (both made by one recursive mkdir). */
  async function flushNewDirectories(firstCreated: string, deepest: string): Promise<void> {
    const made = [firstCreated];
    for (const segment of relative(firstCreated, deepest).split(sep).filter(Boolean)) made.push(join(made[made.length - 1]!, segment));
    for (const d of made) await fsyncPath(dirname(d));
  }

  /** A stream (or a file on another filesystem) written to a fsynced temp file; returns its path. */
  async function writeTemp(source: BlobSource, signal?: AbortSignal): Promise<string> {
    await makeDirectory(tmpDir);
    const tmp = join(tmpDir, randomUUID());
    try {
      if ('path' in source) await copyFile(source.path, tmp);
      else await pipeline(source.stream, createWriteStream(tmp, { flags: 'wx' }), { signal });
      await fsyncPath(tmp, 'r+');
      return tmp;
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /** A spool file (made durable first) becomes the blob itself, or a copy across filesystems; true when it was moved. */
  async function moveSpooled(path: string, target: string, sync: (() => Promise<void>) | undefined, signal?: AbortSignal): Promise<boolean> {
    try {
      await sync?.();
      await renameInto(path, target);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    }
    await placeTemp(await writeTemp({ path }, signal), target);
    return false;
  }

  /**
   * A spool file made durable with others (see `filesystemFlush`): its bytes by a flush begun after
   * they were written, then its name by one begun after the rename, so a blob's key never names
   * bytes a power cut could lose, not even a twin's. False (file untouched) when such flushes are
   * not to be had, or the spool is on another filesystem: the caller then flushes it on its own.
   */
  async function moveFlushedTogether(path: string, target: string): Promise<boolean> {
    rootMade ??= makeDirectory(root); // `sync -f` opens it
    await rootMade;
    if (!(await together.flush())) return false;
    try {
      // A directory it makes is still flushed at once (256 times in a store's life): a put of another kind may land in it meanwhile.
      await renameInto(path, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EXDEV') return false;
      throw err;
    }
    if (!(await together.flush())) {
      // Flushes stopped working between the two: the rename, as any other put's.
      await keyDirs.sync(dirname(target));
    }
    await directoriesFlushed();
    return true;
  }

  async function placeTemp(tmp: string, target: string): Promise<void> {
    try {
      await renameInto(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  return {
    name: 'fs',
    putsFilesWithoutHead: true,

    async put(key, source, putOpts) {
      const target = pathOf(key);
      if ('path' in source && source.release) {
        await source.release();
        if (await moveFlushedTogether(source.path, target)) {
          source.onMoved?.();
          return;
        }
      }
      if (!('path' in source)) await placeTemp(await writeTemp(source, putOpts?.signal), target);
      else if (await moveSpooled(source.path, target, source.sync, putOpts?.signal)) source.onMoved?.();
      await keyDirs.sync(dirname(target));
      await directoriesFlushed();
    },

    async get(key, getOpts) {
      // Opened first so a missing blob is a null answer, not a stream error; the stream closes the fd on end or destroy.
      const p = pathOf(key);
      const fd = await openForRead(p);
      if (fd === null) return null;
      const range = getOpts?.range;
      return createReadStream(p, { fd, start: range?.start, end: range?.end, highWaterMark: 256 * 1024, signal: getOpts?.signal, autoClose: true });
    },

    async openReader(key): Promise<BlobReader | null> {
      const fd = await openForRead(pathOf(key));
      if (fd === null) return null;
      let closed = false;
      return {
        read: (into, length, position) =>
          new Promise((resolve, reject) => {
            if (closed) return reject(new Error('blob reader is closed'));
            readFd(fd, into, 0, length, position, (err, n) => (err ? reject(err) : resolve(n)));
          }),
        close() {
          if (closed) return;
          closed = true;
          closeFd(fd, () => {}); // nothing useful to do about a failed close of a read-only fd
        },
      };
    },

    async head(key) {
      const p = pathOf(key);
      return new Promise((resolve, reject) =>
        statCb(p, (err, s) => {
          if (err) return err.code === 'ENOENT' ? resolve(null) : reject(err);
          resolve(s.isFile() ? { size: s.size } : null);
        }),
      );
    },

    async delete(key) {
      await rm(pathOf(key), { force: true });
    },

    async close() {
      keyDirs.closeAll();
      together.close();
    },

    async *list(prefix = '') {
      const stack = [root];
      while (stack.length) {
        const dir = stack.pop()!;
        let entries;
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
          throw err;
        }
        for (const e of entries) {
          const full = join(dir, e.name);
          const key = relative(root, full).split(sep).join('/');
          if (key === TMP) continue;
          if (e.isDirectory()) stack.push(full);
          else if (key.startsWith(prefix)) {
            const st = await stat(full).catch(() => null); // deleted since readdir
            if (st) yield { key, size: st.size, modified: st.mtime };
          }
        }
      }
    },
  };
}

/**
 * Removes what copies into `root` left in its temp directory when the process died mid-copy (a move
 * to fs, a spool on another filesystem), once older than `olderThanMs`: a younger file may be a copy
 * under way by another server on the same root. Answers how many files went.
 */
export async function clearFsTemp(root: string, olderThanMs = 3600_000): Promise<number> {
  const dir = join(resolve(root), TMP);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    const p = join(dir, name);
    const st = await stat(p).catch(() => null);
    if (!st || Date.now() - st.mtimeMs < olderThanMs) continue;
    await rm(p, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

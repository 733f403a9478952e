import { close as closeFd, fsync as fsyncFd, open as openFd } from 'node:fs';

/**
 * Through the callback API: on a mirror import of small files every put pays this, and the
 * FileHandle API's objects and promises cost measurably more CPU per call (bench/mirror-import.mjs).
 */
export function fsyncPath(p: string, flags = 'r'): Promise<void> {
  return new Promise((resolve, reject) =>
    openFd(p, flags, (openErr, fd) => {
      if (openErr) return reject(openErr);
      fsyncFd(fd, (syncErr) => closeFd(fd, (closeErr) => (syncErr ?? closeErr ? reject(syncErr ?? closeErr) : resolve())));
    }),
  );
}

/**
 * Open descriptors of the key directories (256 under content addresses), so the fsync that makes
 * each rename durable is one call instead of open, fsync and close: on a small-file import every
 * call is a trip through libuv's pool, two context switches on a busy core (bench/mirror-import.mjs).
 * A directory a rename finds missing is forgotten before it is made again, so a descriptor never
 * names a directory that has since been removed; a forgotten one is closed once no fsync uses it.
 */
export function keyDirectories() {
  const MAX = 1024; // beyond that (keys other than content addresses), open and close each time
  const open = new Map<string, { fd: Promise<number>; users: number; forgotten: boolean }>();
  const closeEntry = (e: { fd: Promise<number> }) => void e.fd.then((fd) => closeFd(fd, () => {})).catch(() => {});
  return {
    async sync(dir: string): Promise<void> {
      let e = open.get(dir);
      if (!e) {
        if (open.size >= MAX) return fsyncPath(dir);
        const fd = new Promise<number>((resolve, reject) => openFd(dir, 'r', (err, n) => (err ? reject(err) : resolve(n))));
        const entry = { fd, users: 0, forgotten: false };
        e = entry;
        open.set(dir, entry);
        fd.catch(() => open.get(dir) === entry && open.delete(dir));
      }
      e.users++;
      try {
        const fd = await e.fd;
        await new Promise<void>((resolve, reject) => fsyncFd(fd, (err) => (err ? reject(err) : resolve())));
      } finally {
        if (--e.users === 0 && e.forgotten) closeEntry(e);
      }
    },
    forget(dir: string): void {
      const e = open.get(dir);
      if (!e) return;
      open.delete(dir);
      e.forgotten = true;
      if (e.users === 0) closeEntry(e);
    },
    closeAll(): void {
      for (const dir of [...open.keys()]) this.forget(dir);
    },
  };
}

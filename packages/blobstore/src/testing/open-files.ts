import { readdirSync, readlinkSync, statSync } from 'node:fs';

/**
 * Files (or, asked for, directories) under `root` that this process holds open (Linux:
 * /proc/self/fd), as the kernel names them: a removed one ends in " (deleted)". Tests use it to
 * prove a spool or blob file is released; a test server runs in the test's own process, so its
 * files count too. Files only by default: the fs driver keeps its key directories open.
 */
export function openUnder(root: string, kind: 'files' | 'directories' = 'files'): string[] {
  const paths: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const p = readlinkSync(`/proc/self/fd/${fd}`);
      if (p.startsWith(root) && statSync(`/proc/self/fd/${fd}`).isDirectory() === (kind === 'directories')) paths.push(p);
    } catch {
      // the fd readdir itself used is gone by now
    }
  }
  return paths;
}

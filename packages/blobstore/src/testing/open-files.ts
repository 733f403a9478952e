import { readdirSync, readlinkSync, statSync } from 'node:fs';

/**
 * Files under `root` that this process holds open (Linux: /proc/self/fd).
 * Tests use it to prove a spool or blob file is released; a test server runs
 * in the test's own process, so its files count too. Directories are left out:
 * the fs driver keeps its key directories open for their flushes.
 */
export function openUnder(root: string): string[] {
  const paths: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const p = readlinkSync(`/proc/self/fd/${fd}`);
      if (p.startsWith(root) && !statSync(`/proc/self/fd/${fd}`).isDirectory()) paths.push(p);
    } catch {
      // the fd readdir itself used is gone by now
    }
  }
  return paths;
}

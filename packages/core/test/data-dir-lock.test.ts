import { mkdtempSync, readFileSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BootError, lockDataDir } from '../src/index.js';
import { startTestServer } from '../src/testing/server.js';

const dir = () => mkdtempSync(join(tmpdir(), 'trove-lock-'));
/** A lock as another server wrote it: on another host (or in another container), whose pid this process cannot check. */
const foreignLock = (d: string) =>
  writeFileSync(join(d, 'trove.lock'), JSON.stringify({ pid: 1, host: 'elsewhere', ns: 'pid:[1]', since: new Date().toISOString(), nonce: 'x' }) + '\n');

describe('data directory lock', () => {
  it('refuses a second core on a directory this process already serves, and frees it on close', async () => {
    const d = dir();
    const first = await startTestServer({ modules: [], dataDir: d });
    await expect(startTestServer({ modules: [], dataDir: d })).rejects.toThrow(/is in use by another Trove server/);
    await first.close();
    const again = await startTestServer({ modules: [], dataDir: d });
    await again.close();
    expect(existsSync(join(d, 'trove.lock'))).toBe(false);
  });

  it('waits for a lock it cannot check, and takes it over once nobody touches it', async () => {
    const d = dir();
    foreignLock(d);
    const began = Date.now();
    const lock = await lockDataDir(d, { staleMs: 1500 });
    expect(Date.now() - began).toBeGreaterThanOrEqual(1000);
    expect(JSON.parse(readFileSync(join(d, 'trove.lock'), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    lock.release();
  });

  it('refuses once it has waited, while the holder it cannot check keeps touching its lock', async () => {
    const d = dir();
    foreignLock(d);
    const touch = setInterval(() => utimesSync(join(d, 'trove.lock'), new Date(), new Date()), 200);
    try {
      await expect(lockDataDir(d, { staleMs: 1500 })).rejects.toBeInstanceOf(BootError);
    } finally {
      clearInterval(touch);
    }
  });

  it('releases only its own lock: one taken over meanwhile stays', async () => {
    const d = dir();
    const lock = await lockDataDir(d);
    foreignLock(d);
    lock.release();
    expect(JSON.parse(readFileSync(join(d, 'trove.lock'), 'utf8')).host).toBe('elsewhere');
  });
});

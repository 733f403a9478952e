import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, readBootConfig } from '../src/index.js';
import { noteFormat } from './helpers.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
const mode = (p: string) => statSync(p).mode & 0o777;

describe('the data directory is for the server alone', () => {
  it('creates the data directory 0700 and trove.db with its -wal and -shm 0600, whatever the umask', async () => {
    const root = mkdtempSync(join(tmpdir(), 'trove-perm-'));
    roots.push(root);
    const dataDir = join(root, 'data');
    const old = process.umask(0o022);
    try {
      const boot = readBootConfig({ TR_DATA_DIR: dataDir });
      expect(mode(dataDir)).toBe(0o700);
      const ctx = await createCore({ dataDir: boot.dataDir, masterKey: randomBytes(32), formats: [noteFormat], env: {}, log: pino({ level: 'silent' }) });
      ctx.users.create({ username: 'alice' }); // a write: the WAL and shared-memory files exist now
      for (const f of ['trove.db', 'trove.db-wal', 'trove.db-shm']) {
        expect(existsSync(join(dataDir, f)), f).toBe(true);
        expect(mode(join(dataDir, f)), f).toBe(0o600);
      }
      await ctx.close();
    } finally {
      process.umask(old);
    }
  });

  it('tightens a database file that an older version left readable by others', async () => {
    const root = mkdtempSync(join(tmpdir(), 'trove-perm-'));
    roots.push(root);
    writeFileSync(join(root, 'trove.db'), '', { mode: 0o644 });
    const ctx = await createCore({ dataDir: root, masterKey: randomBytes(32), formats: [noteFormat], env: {}, log: pino({ level: 'silent' }) });
    expect(mode(join(root, 'trove.db'))).toBe(0o600);
    await ctx.close();
  });
});

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BootError, createCore, parseDuration, parseListen, readBootConfig } from '../src/index.js';
import { schema } from '../src/index.js';
import { noteFormat } from './helpers.js';

const dir = () => mkdtempSync(join(tmpdir(), 'trove-boot-'));

describe('boot variables', () => {
  it('generates a 32-byte master key file with mode 0600 once', () => {
    const d = dir();
    const a = readBootConfig({ TR_DATA_DIR: d });
    expect(a.masterKeyCreated).toBe(true);
    expect(a.masterKey).toHaveLength(32);
    expect(statSync(join(d, 'master.key')).mode & 0o777).toBe(0o600);
    const b = readBootConfig({ TR_DATA_DIR: d });
    expect(b.masterKeyCreated).toBe(false);
    expect(b.masterKey.equals(a.masterKey)).toBe(true);
    expect(Buffer.from(readFileSync(join(d, 'master.key'), 'utf8').trim(), 'base64')).toHaveLength(32);
  });

  it('names the variable when a boot value is invalid', () => {
    expect(() => readBootConfig({ TR_DATA_DIR: dir(), TR_LISTEN: 'nope' })).toThrow(/TR_LISTEN/);
    expect(() => readBootConfig({ TR_DATA_DIR: dir(), TR_MASTER_KEY: 'c2hvcnQ=' })).toThrow(/TR_MASTER_KEY/);
    expect(() => readBootConfig({ TR_DATA_DIR: dir(), TR_BOOTSTRAP_ADMIN_USER: 'root' })).toThrow(/TR_BOOTSTRAP_ADMIN_PASSWORD/);
  });

  it('parses listen addresses', () => {
    expect(parseListen(':8080')).toEqual({ host: undefined, port: 8080 });
    expect(parseListen('127.0.0.1:9000')).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(parseListen('[::1]:80')).toEqual({ host: '::1', port: 80 });
  });

  it('parses durations without a day unit', () => {
    expect(parseDuration('15m')).toBe(900_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('300ms')).toBe(300);
    expect(parseDuration('2160h')).toBe(2160 * 3_600_000);
    expect(parseDuration('90d')).toBeNull();
    expect(parseDuration('0s')).toBeNull();
    expect(parseDuration('')).toBeNull();
  });
});

describe('settings at start', () => {
  const quiet = () => pino({ level: 'silent' });

  it('refuses start on an invalid environment value, naming the variable', async () => {
    await expect(createCore({ dataDir: dir(), masterKey: randomBytes(32), modules: [noteFormat], env: { TR_MAX_UPLOAD_BYTES: 'lots' }, log: quiet() })).rejects.toThrow(
      /TR_MAX_UPLOAD_BYTES/,
    );
    await expect(createCore({ dataDir: dir(), masterKey: randomBytes(32), modules: [noteFormat], env: { TR_STORAGE: 's3' }, log: quiet() })).rejects.toBeInstanceOf(
      BootError,
    );
  });

  it("removes what a crash left in the fs blob store's temp directory, once it is stale", async () => {
    const d = dir();
    const tmp = join(d, 'blobs', '.tmp');
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'left-by-a-crash'), 'half a copy');
    const hoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(join(tmp, 'left-by-a-crash'), hoursAgo, hoursAgo);
    writeFileSync(join(tmp, 'being-written'), 'a copy under way (another node on this root)');
    const ctx = await createCore({ dataDir: d, masterKey: randomBytes(32), modules: [noteFormat], env: {}, log: quiet() });
    expect(readdirSync(tmp)).toEqual(['being-written']);
    await ctx.close();
  });

  it('reports unknown TR_ variables', async () => {
    const ctx = await createCore({ dataDir: dir(), masterKey: randomBytes(32), modules: [noteFormat], env: { TR_TYPO: '1', TR_DATA_DIR: '/x' }, log: quiet() });
    expect(ctx.settings.unknownEnv(['TR_DATA_DIR'])).toEqual(['TR_TYPO']);
    await ctx.close();
  });

  it('ignores a stored secret it cannot decrypt and a stored value that is invalid', async () => {
    const d = dir();
    const first = await createCore({ dataDir: d, masterKey: randomBytes(32), modules: [noteFormat], env: {}, log: quiet() });
    first.settings.setInternal({ 's3.secret_access_key': 'abc', max_json_bytes: 4096 });
    first.db.insert(schema.settings).values({ key: 'max_upload_bytes', value: '"not a number"', updatedAt: new Date() }).run();
    await first.close();
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (l: string) => warnings.push(l) });
    // a different master key: the stored secret no longer decrypts
    const second = await createCore({ dataDir: d, masterKey: randomBytes(32), modules: [noteFormat], env: {}, log });
    expect(second.settings.string('s3.secret_access_key')).toBe('');
    expect(second.settings.int('max_json_bytes')).toBe(4096);
    expect(second.settings.int('max_upload_bytes')).toBe(2147483648);
    expect(warnings.join('\n')).toMatch(/s3.secret_access_key/);
    expect(warnings.join('\n')).not.toMatch(/abc/);
    await second.close();
  });

  it('stores secrets encrypted', async () => {
    const d = dir();
    const ctx = await createCore({ dataDir: d, masterKey: randomBytes(32), modules: [noteFormat], env: {}, log: quiet() });
    ctx.settings.setInternal({ 's3.secret_access_key': 'plain-secret-value' });
    const row = ctx.db.select().from(schema.settings).all().find((r) => r.key === 's3.secret_access_key')!;
    expect(row.value).toMatch(/^enc:v1:/);
    expect(row.value).not.toContain('plain-secret-value');
    await ctx.close();
  });

  it('tells watchers about live changes', async () => {
    const ctx = await createCore({ dataDir: dir(), masterKey: randomBytes(32), modules: [noteFormat], env: {}, log: quiet() });
    const seen: string[][] = [];
    ctx.settings.watch(['log.level'], (keys) => seen.push(keys));
    await ctx.settings.patch({ 'log.level': 'debug' });
    await ctx.settings.patch({ 'log.level': 'debug' });
    expect(seen).toEqual([['log.level']]);
    expect(ctx.log.level).toBe('debug');
    await ctx.close();
  });
});

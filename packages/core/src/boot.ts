import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** A configuration problem that must stop the server before it listens. The message names the variable. */
export class BootError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BootError';
  }
}

export interface BootConfig {
  dataDir: string;
  listen: { host: string | undefined; port: number };
  masterKey: Buffer;
  /** True when the master key file was created by this start. */
  masterKeyCreated: boolean;
  bootstrapAdmin: { username: string; password: string } | null;
  /** Dev mode (`TR_DEV=1`): dev defaults for base_url and deb.debounce, pretty logs. */
  dev: boolean;
}

export const BOOT_VARIABLES = [
  'TR_DATA_DIR',
  'TR_LISTEN',
  'TR_MASTER_KEY',
  'TR_BOOTSTRAP_ADMIN_USER',
  'TR_BOOTSTRAP_ADMIN_PASSWORD',
  'TR_DEV',
];

/** `:8080`, `8080`, `127.0.0.1:8080`, `[::1]:8080`. */
export function parseListen(raw: string): { host: string | undefined; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]*))?:?(\d{1,5})$/.exec(raw.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || !(port >= 0 && port <= 65535)) throw new BootError(`TR_LISTEN: expected [host]:port, got "${raw}"`);
  const host = m[1] ?? (m[2] || undefined);
  return { host, port };
}

function loadMasterKey(env: Record<string, string | undefined>, dataDir: string): { key: Buffer; created: boolean } {
  const fromEnv = env.TR_MASTER_KEY;
  if (fromEnv !== undefined) {
    const key = Buffer.from(fromEnv.trim(), 'base64');
    if (key.length !== 32) throw new BootError('TR_MASTER_KEY: must be the base64 encoding of exactly 32 bytes');
    return { key, created: false };
  }
  const file = join(dataDir, 'master.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new BootError(`TR_MASTER_KEY: ${file} does not hold a base64 key of 32 bytes`);
    return { key, created: false };
  }
  const key = randomBytes(32);
  // Written with mode 0600 from the start (no window where it is world-readable).
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { key, created: true };
}

/** Reads the boot variables (restart required to change them) and prepares the data directory. */
export function readBootConfig(env: Record<string, string | undefined> = process.env): BootConfig {
  const dev = env.TR_DEV !== undefined && env.TR_DEV !== '' && env.TR_DEV !== '0' && env.TR_DEV !== 'false';
  const dataDir = resolve(env.TR_DATA_DIR || './data');
  try {
    // Password hashes, sealed secrets and the master key live here: not for other local users.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
  } catch (err) {
    throw new BootError(`TR_DATA_DIR: cannot create ${dataDir}: ${(err as Error).message}`);
  }
  const listen = parseListen(env.TR_LISTEN ?? ':8080');
  const { key, created } = loadMasterKey(env, dataDir);
  const user = env.TR_BOOTSTRAP_ADMIN_USER;
  const password = env.TR_BOOTSTRAP_ADMIN_PASSWORD;
  if ((user === undefined) !== (password === undefined)) {
    throw new BootError(`${user === undefined ? 'TR_BOOTSTRAP_ADMIN_USER' : 'TR_BOOTSTRAP_ADMIN_PASSWORD'}: set both bootstrap variables or neither`);
  }
  if (password !== undefined && password.length < 8) throw new BootError('TR_BOOTSTRAP_ADMIN_PASSWORD: must be at least 8 characters');
  return {
    dataDir,
    listen,
    masterKey: key,
    masterKeyCreated: created,
    bootstrapAdmin: user !== undefined && password !== undefined ? { username: user, password } : null,
    dev,
  };
}

import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './errors.js';

/**
 * Local state, one directory per server under `$TROVE_CONFIG_DIR` (default `~/.config/trove`):
 * `servers/<serverSlug>/device.key` (the Ed25519 private key, PKCS#8 PEM) and `device.json` (the
 * device id and what the server told about it). Directories are 0700, files 0600: the key
 * is the device's whole identity and never leaves the machine.
 */
export interface DeviceRecord {
  url: string;
  device_id: string;
  name: string;
  kind: string;
  public_key: string;
  expires_at: string | null;
  enrolled_at: string;
}

export const configDir = () => process.env.TROVE_CONFIG_DIR || join(homedir(), '.config', 'trove');

/**
 * The name before the hash (trove 0.1.0): `https://trove.example.com:8443/sub` -> `https_trove.example.com_8443_sub`.
 * It squashes `_`, `:` and `/` alike, so `https://h:8443`, `https://h/8443` and `https://h_8443` share it.
 */
export function legacySlug(url: string): string {
  return url.replace(/^(https?):\/\//, '$1_').replace(/[^A-Za-z0-9.-]+/g, '_');
}

/** A server's directory name: the readable slug, then 16 hex digits of SHA-256 of the exact URL, one per URL. */
export function serverSlug(url: string): string {
  return `${legacySlug(url)}_${createHash('sha256').update(url).digest('hex').slice(0, 16)}`;
}

function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700); // mkdir's mode goes through the umask, and the directory may predate us
}

/** Write-then-rename, so a crash leaves the old file or the new one, never half of one. */
function writePrivate(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

export function serverDir(url: string): string {
  return join(configDir(), 'servers', serverSlug(url));
}

const legacyDir = (url: string) => join(configDir(), 'servers', legacySlug(url));

/** device.json's URL, or undefined when there is none or it cannot be read. */
function recordedUrl(dir: string): unknown {
  try {
    return (JSON.parse(readFileSync(join(dir, 'device.json'), 'utf8')) as Partial<DeviceRecord>).url;
  } catch {
    return undefined;
  }
}

/**
 * Where url's device lives: its own directory, else one written by trove 0.1.0 under the legacy
 * name, but only when that device.json names exactly this URL (another URL may share the name).
 */
function deviceDir(url: string): string {
  const own = serverDir(url);
  if (!existsSync(join(own, 'device.json')) && recordedUrl(legacyDir(url)) === url) return legacyDir(url);
  return own;
}

export function saveDevice(record: DeviceRecord, privateKeyPem: string): void {
  privateDir(configDir());
  privateDir(join(configDir(), 'servers'));
  const dir = serverDir(record.url);
  privateDir(dir);
  writePrivate(join(dir, 'device.key'), privateKeyPem);
  writePrivate(join(dir, 'device.json'), JSON.stringify(record, null, 2) + '\n');
  // A new login replaces this URL's key: a legacy directory holding it goes (another URL's stays).
  if (recordedUrl(legacyDir(record.url)) === record.url) rmSync(legacyDir(record.url), { recursive: true, force: true });
}

/** Updates what the server last said about the device (name, expiry); the key is untouched. */
export function updateDevice(record: DeviceRecord): void {
  writePrivate(join(deviceDir(record.url), 'device.json'), JSON.stringify(record, null, 2) + '\n');
}

export function loadDevice(url: string): { record: DeviceRecord; privateKeyPem: string } | null {
  const dir = deviceDir(url);
  if (!existsSync(join(dir, 'device.json')) || !existsSync(join(dir, 'device.key'))) return null;
  let record: DeviceRecord;
  let privateKeyPem: string;
  try {
    record = JSON.parse(readFileSync(join(dir, 'device.json'), 'utf8')) as DeviceRecord;
    privateKeyPem = readFileSync(join(dir, 'device.key'), 'utf8');
  } catch (e) {
    throw new CliError(`cannot read the device of ${url} in ${dir}: ${(e as Error).message}`);
  }
  // A copied or edited record must not sign for another server than the one it was enrolled with.
  if (record?.url !== url) throw new CliError(`${join(dir, 'device.json')} belongs to ${String(record?.url)}, not ${url}: run \`trove login ${url}\``);
  return { record, privateKeyPem };
}

/** The base URLs of every server this machine is logged in to. */
export function knownServers(): string[] {
  const root = join(configDir(), 'servers');
  if (!existsSync(root)) return [];
  const urls = new Set<string>();
  for (const name of readdirSync(root)) {
    try {
      const rec = JSON.parse(readFileSync(join(root, name, 'device.json'), 'utf8')) as DeviceRecord;
      // Only a directory named for its record's URL (now or by trove 0.1.0) is that server's.
      const named = typeof rec.url === 'string' && (name === serverSlug(rec.url) || name === legacySlug(rec.url));
      if (named && existsSync(join(root, name, 'device.key'))) urls.add(rec.url);
    } catch {
      // a half-written or foreign directory is not a server
    }
  }
  return [...urls].sort();
}

import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './errors.js';

/**
 * Local state, one directory per server under `$TROVE_CONFIG_DIR` (default `~/.config/trove`):
 * `servers/<server>/device.key` (the Ed25519 private key, PKCS#8 PEM) and `device.json` (the
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

/** `https://trove.example.com:8443/sub` -> `https_trove.example.com_8443_sub`: readable, one per base URL. */
export function serverSlug(url: string): string {
  return url.replace(/^(https?):\/\//, '$1_').replace(/[^A-Za-z0-9.-]+/g, '_');
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

export function saveDevice(record: DeviceRecord, privateKeyPem: string): void {
  privateDir(configDir());
  privateDir(join(configDir(), 'servers'));
  const dir = serverDir(record.url);
  privateDir(dir);
  writePrivate(join(dir, 'device.key'), privateKeyPem);
  writePrivate(join(dir, 'device.json'), JSON.stringify(record, null, 2) + '\n');
}

/** Updates what the server last said about the device (name, expiry); the key is untouched. */
export function updateDevice(record: DeviceRecord): void {
  writePrivate(join(serverDir(record.url), 'device.json'), JSON.stringify(record, null, 2) + '\n');
}

export function loadDevice(url: string): { record: DeviceRecord; privateKeyPem: string } | null {
  const dir = serverDir(url);
  if (!existsSync(join(dir, 'device.json')) || !existsSync(join(dir, 'device.key'))) return null;
  try {
    return { record: JSON.parse(readFileSync(join(dir, 'device.json'), 'utf8')) as DeviceRecord, privateKeyPem: readFileSync(join(dir, 'device.key'), 'utf8') };
  } catch (e) {
    throw new CliError(`cannot read the device of ${url} in ${dir}: ${(e as Error).message}`);
  }
}

/** The base URLs of every server this machine is logged in to. */
export function knownServers(): string[] {
  const root = join(configDir(), 'servers');
  if (!existsSync(root)) return [];
  const urls: string[] = [];
  for (const name of readdirSync(root).sort()) {
    try {
      const rec = JSON.parse(readFileSync(join(root, name, 'device.json'), 'utf8')) as DeviceRecord;
      if (typeof rec.url === 'string' && existsSync(join(root, name, 'device.key'))) urls.push(rec.url);
    } catch {
      // a half-written or foreign directory is not a server
    }
  }
  return urls;
}

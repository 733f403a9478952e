import { join } from 'node:path';
import { fsDriver } from './drivers/fs.js';
import type { BlobDriver } from './types.js';

/** Where blobs live, as the `storage`, `fs.*` and `s3.*` settings describe it. Holds the S3 secret. */
export interface StorageConfig {
  /** `fs` or `s3` (`r2` is read as `s3`). */
  storage: 'fs' | 's3';
  /** Blob directory for fs; '' means `<dataDir>/blobs`. */
  fsRoot: string;
  s3: {
    endpoint: string;
    region: string;
    bucket: string;
    accessKeyId: string;
    secretAccessKey: string;
    prefix: string;
    pathStyle: boolean;
  };
}

/** The settings that name the place itself; a change of one of them moves the blobs. */
export const LOCATION_KEYS = ['storage', 'fs.root', 's3.endpoint', 's3.bucket', 's3.prefix'] as const;

/** Reads a StorageConfig through a settings getter (the live settings, or a pending PATCH's view). */
export function storageConfig(get: (key: string) => unknown): StorageConfig {
  const str = (k: string) => String(get(k) ?? '');
  return {
    storage: str('storage') === 'fs' ? 'fs' : 's3',
    fsRoot: str('fs.root'),
    s3: {
      endpoint: str('s3.endpoint'),
      region: str('s3.region') || 'auto',
      bucket: str('s3.bucket'),
      accessKeyId: str('s3.access_key_id'),
      secretAccessKey: str('s3.secret_access_key'),
      prefix: str('s3.prefix'),
      pathStyle: get('s3.path_style') === true,
    },
  };
}

/**
 * The location alone, without credentials: safe for an API answer, a log line or a job record.
 * Two configs with equal locations are the same store.
 */
export function storageLocation(cfg: StorageConfig, dataDir: string): Record<string, string> {
  if (cfg.storage === 'fs') return { storage: 'fs', root: cfg.fsRoot || join(dataDir, 'blobs') };
  return { storage: 's3', endpoint: cfg.s3.endpoint, bucket: cfg.s3.bucket, prefix: cfg.s3.prefix.replace(/^\/+|\/+$/g, '') };
}

/**
 * The one place a driver is chosen: fs, or s3 (loaded with its SDK only here, on first use).
 * Throws with a readable message when the config is incomplete.
 */
export async function createDriver(cfg: StorageConfig, opts: { dataDir: string; maxAttempts?: number; warn?: (message: string) => void }): Promise<BlobDriver> {
  if (cfg.storage === 'fs') return fsDriver({ root: cfg.fsRoot || join(opts.dataDir, 'blobs'), ...(opts.warn ? { warn: opts.warn } : {}) });
  const { s3Driver } = await import('./drivers/s3.js');
  return s3Driver({ ...cfg.s3, maxAttempts: opts.maxAttempts });
}

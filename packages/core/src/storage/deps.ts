import type { BlobDriver, BlobStore } from '@trove/blobstore';
import type { Logger } from 'pino';
import type { CommitDurability } from '../db/commit-durability.js';
import type { TroveDb } from '../db/open.js';
import type { JobRunner } from '../jobs/runner.js';
import type { SettingsRegistry } from '../settings/registry.js';

/** What the storage subsystem uses of the core: nothing else. */
export interface StorageDeps {
  db: TroveDb;
  /** Resolves once every commit so far is on disk (`CoreContext.durability`). */
  durability: CommitDurability;
  blobs: BlobStore;
  settings: SettingsRegistry;
  jobs: JobRunner;
  log: Logger;
  dataDir: string;
  /**
   * A driver for a store: its location settings, and the credentials sealed with it (`sealCredentials`),
   * or else those of the live settings.
   */
  driverAt(location: Record<string, string>, sealedCredentials?: string): Promise<BlobDriver>;
  /** The settings a move saves at its switch: the target's location, and its credentials when sealed with it. */
  settingsAt(location: Record<string, string>, sealedCredentials?: string): Record<string, string | boolean>;
}

/** Every storage job (the move, the sweep) holds this key: never two at once. */
export const STORAGE_JOB_KEY = 'storage';

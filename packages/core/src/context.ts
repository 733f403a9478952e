import type { BlobStore, Spool } from '@trove/blobstore';
import type { Logger } from 'pino';
import type { RepoAccess } from './access/repo-access.js';
import type { AssetService } from './assets/service.js';
import type { AuditLog } from './audit/service.js';
import type { Generations } from './cache/generations.js';
import type { CommitDurability } from './db/commit-durability.js';
import type { TroveDb } from './db/open.js';
import type { JobRunner } from './jobs/runner.js';
import type { FormatRegistry } from './modules/registry.js';
import type { PermissionService } from './repos/permissions.js';
import type { RepoService } from './repos/service.js';
import type { SettingsRegistry } from './settings/registry.js';
import type { SecretBox } from './settings/secret-box.js';
import type { UserService } from './users/service.js';

/**
 * The core services a subsystem module (auth, mirror, core's own API) is created with.
 * Formats get the narrower `FormatContext`; neither can replace the credential provider
 * (a module supplies it through its instance) or close the core (the lifecycle does).
 */
export interface CoreContext {
  db: TroveDb;
  /** Resolves once every commit made so far survives a power cut; awaited before a write request is answered. */
  durability: CommitDurability;
  settings: SettingsRegistry;
  log: Logger;
  dataDir: string;
  blobs: BlobStore;
  spool: Spool;
  formats: FormatRegistry;
  repos: RepoService;
  permissions: PermissionService;
  users: UserService;
  /** Database-visible change counters: every write that can change an access decision or an asset lookup bumps one (read-path caches). */
  generations: Generations;
  access: RepoAccess;
  assets: AssetService;
  /** The admin audit log (the only place client IPs are kept). */
  audit: AuditLog;
  /** AES-256-GCM under a key derived from the master key, for secrets other packages keep at rest (TOTP seeds). */
  secrets: SecretBox;
  /** Long-running work with persisted records, resume after restart, progress and cancel (see jobs/index.ts). */
  jobs: JobRunner;
  /** `base_url`, or '' when unset. */
  baseUrl(): string;
}

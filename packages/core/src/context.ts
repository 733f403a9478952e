import type { BlobStore, Spool } from '@trove/blobstore';
import type { Logger } from 'pino';
import type { CredentialResolver } from './access/credential.js';
import type { RepoAccess } from './access/repo-access.js';
import type { AssetService } from './assets/service.js';
import type { AuditLog } from './audit/service.js';
import type { Generations } from './cache/generations.js';
import type { TroveDb } from './db/open.js';
import type { FormatRegistry } from './format.js';
import type { JobRunner } from './jobs/runner.js';
import type { PermissionService } from './repos/permissions.js';
import type { RepoService } from './repos/service.js';
import type { SettingsRegistry } from './settings/registry.js';
import type { SecretBox } from './settings/secret-box.js';
import type { UserService } from './users/service.js';

/**
 * Everything a format or subsystem may use. The server builds one with `createCore`;
 * another team can build one the same way and mount a format's routes without the server.
 */
export interface CoreContext {
  db: TroveDb;
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
  /** Replaceable: the auth package installs its resolver at start. */
  credentials: { resolver: CredentialResolver };
  /** `base_url`, or '' when unset. */
  baseUrl(): string;
  /** Closes the database and the blob store (after formats stopped). */
  close(): Promise<void>;
}

export type FormatContext = CoreContext;

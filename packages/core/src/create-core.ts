import { BlobStore, createDriver, Spool, storageConfig } from '@trove/blobstore';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { denyAllResolver } from './access/deny-all.js';
import { RepoAccess } from './access/repo-access.js';
import { AssetService } from './assets/service.js';
import { AuditLog } from './audit/service.js';
import { Generations } from './cache/generations.js';
import type { CoreContext } from './context.js';
import { applyMigrations, coreMigrations, openDatabase, type MigrationSet } from './db/open.js';
import { FormatRegistry, type FormatDefinition } from './format.js';
import { JobRunner } from './jobs/runner.js';
import { PermissionService } from './repos/permissions.js';
import { RepoService } from './repos/service.js';
import { coreSettingsGroups } from './settings/core-settings.js';
import { SettingsRegistry } from './settings/registry.js';
import { SecretBox } from './settings/secret-box.js';
import type { SettingsGroup } from './settings/types.js';
import { UserService } from './users/service.js';

export interface CreateCoreOptions {
  dataDir: string;
  masterKey: Buffer;
  formats: FormatDefinition<any>[];
  /** Settings groups and migrations of subsystems (auth, mirror), registered after core's. */
  settingsGroups?: SettingsGroup[];
  migrations?: MigrationSet[];
  env?: Record<string, string | undefined>;
  dev?: boolean;
  log?: Logger;
  /** Apply the `log.level` setting to `log` (off in tests that keep their logger silent). */
  followLogLevel?: boolean;
  /** Database file; defaults to `<dataDir>/trove.db`. */
  dbFile?: string;
}

/**
 * Opens the database, runs every package's migrations, loads settings (throwing
 * BootError on an invalid environment), clears the upload spool and builds the
 * services. Used by the server and by tests; formats get the result as their context.
 */
export async function createCore(opts: CreateCoreOptions): Promise<CoreContext> {
  const log = opts.log ?? pino({ level: 'info' });
  const formats = new FormatRegistry(opts.formats);
  const { db, sqlite } = openDatabase(opts.dbFile ?? join(opts.dataDir, 'trove.db'));
  applyMigrations(db, [coreMigrations, ...(opts.migrations ?? []), ...formats.all().flatMap((f) => (f.migrations ? [f.migrations] : []))]);

  const box = new SecretBox(opts.masterKey);
  const settings = new SettingsRegistry({ db, box, log, env: opts.env ?? process.env, dev: opts.dev });
  for (const g of [...coreSettingsGroups, ...(opts.settingsGroups ?? []), ...formats.all().flatMap((f) => (f.settings ? [f.settings] : []))]) {
    settings.register(g);
  }
  settings.load();
  if (opts.followLogLevel !== false) {
    log.level = settings.string('log.level');
    settings.watch(['log.level'], () => {
      log.level = settings.string('log.level');
    });
  }

  const spool = new Spool(join(opts.dataDir, 'spool'));
  const removed = await spool.init();
  if (removed) log.warn({ files: removed }, 'removed unfinished uploads left by a previous run');

  // The driver is chosen from the settings by blobstore's one factory (fs, or s3 loaded on demand).
  const blobs = new BlobStore(await createDriver(storageConfig((k) => settings.get(k)), { dataDir: opts.dataDir }));
  const generations = new Generations(db);
  const repos = new RepoService(db, formats, generations);
  const permissions = new PermissionService(db, generations);
  const baseUrl = () => settings.string('base_url');
  const jobs = new JobRunner(db, log);
  const ctx: CoreContext = {
    db,
    settings,
    log,
    dataDir: opts.dataDir,
    blobs,
    spool,
    formats,
    repos,
    permissions,
    generations,
    users: new UserService(db, generations),
    access: new RepoAccess(repos, permissions, baseUrl),
    assets: new AssetService(db, blobs, spool, generations),
    audit: new AuditLog(db),
    secrets: box,
    jobs,
    credentials: { resolver: denyAllResolver },
    baseUrl,
    async close() {
      await jobs.stop();
      await blobs.close();
      sqlite.close();
    },
  };
  repos.onChange(async (r) => {
    await formats.get(r.format)?.onRepoChange?.(r, ctx);
  });
  return ctx;
}

import { BlobStore, clearFsTemp, createDriver, Spool, storageConfig, storageLocation } from '@trove/blobstore';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { denyAllResolver } from './access/deny-all.js';
import { RepoAccess } from './access/repo-access.js';
import { AssetService } from './assets/service.js';
import { AuditLog } from './audit/service.js';
import { Generations } from './cache/generations.js';
import type { CoreContext } from './context.js';
import { applyMigrations, openDatabase } from './db/open.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { JobRunner } from './jobs/runner.js';
import { migrationsOf, orderModules, settingsOf, type AnyModule, type CredentialProvider } from './modules/contract.js';
import { withCore } from './modules/core-module.js';
import { FormatRegistry } from './modules/registry.js';
import { PermissionService } from './repos/permissions.js';
import { RepoService } from './repos/service.js';
import { SettingsRegistry } from './settings/registry.js';
import { SecretBox } from './settings/secret-box.js';
import { UserService } from './users/service.js';

export interface CreateCoreOptions {
  dataDir: string;
  masterKey: Buffer;
  /** Formats and subsystem modules; core's own module is added first. Their migrations run and settings register in this order. */
  modules: AnyModule[];
  env?: Record<string, string | undefined>;
  dev?: boolean;
  log?: Logger;
  /** Apply the `log.level` setting to `log` (off in tests that keep their logger silent). */
  followLogLevel?: boolean;
  /** Database file; defaults to `<dataDir>/trove.db`. */
  dbFile?: string;
}

/** The core as the lifecycle holds it: the context modules see, plus what only the lifecycle touches. */
export interface Core extends CoreContext {
  /** Installed by the lifecycle from the one module that supplies it; deny-all until then. */
  credentials: Required<CredentialProvider>;
  /** Closes the database and the blob store (after every module stopped). */
  close(): Promise<void>;
}

/**
 * The first step of the lifecycle: opens the database, runs every module's migrations,
 * loads settings (throwing BootError on an invalid environment), clears the upload spool
 * and builds the services. Creating and starting the modules is `startModules`' part.
 */
export async function createCore(opts: CreateCoreOptions): Promise<Core> {
  // Before anything touches the directory: a second server would clear the first one's upload spool.
  const lock = await lockDataDir(opts.dataDir);
  try {
    return await openCore(opts, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function openCore(opts: CreateCoreOptions, lock: DataDirLock): Promise<Core> {
  const log = opts.log ?? pino({ level: 'info' });
  const modules = orderModules(withCore(opts.modules));
  const formats = new FormatRegistry(modules.flatMap((m) => (m.kind === 'format' ? [m] : [])));
  const { db, sqlite, durability } = openDatabase(opts.dbFile ?? join(opts.dataDir, 'trove.db'));
  applyMigrations(db, modules.flatMap(migrationsOf));

  const box = new SecretBox(opts.masterKey);
  const settings = new SettingsRegistry({ db, box, log, env: opts.env ?? process.env, dev: opts.dev });
  for (const g of modules.flatMap(settingsOf)) settings.register(g);
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
  const storage = storageConfig((k) => settings.get(k));
  const blobs = new BlobStore(await createDriver(storage, { dataDir: opts.dataDir, warn: (message) => log.warn(message) }));
  if (storage.storage === 'fs') {
    const stale = await clearFsTemp(storageLocation(storage, opts.dataDir).root!);
    if (stale) log.warn({ files: stale }, 'removed partial blob copies left by a previous run');
  }
  const generations = new Generations(db);
  const repos = new RepoService(db, formats.configOf, () => formats.names(), generations);
  const permissions = new PermissionService(db, generations);
  const baseUrl = () => settings.string('base_url');
  const jobs = new JobRunner(db, log);
  repos.onChange(async (r) => {
    await formats.instance(r.format)?.onRepoChange?.(r);
  });
  return {
    db,
    durability,
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
    credentials: { resolver: denyAllResolver, setupOnlyPaths: [], publishPaths: [], freshProofRoutes: [] },
    baseUrl,
    async close() {
      await jobs.stop();
      await blobs.close();
      durability.close();
      sqlite.close();
      lock.release();
    },
  };
}

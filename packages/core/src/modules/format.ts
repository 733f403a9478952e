import type { BlobStore, HashAlgorithm, Spool, SpooledFile } from '@trove/blobstore';
import type { Context, Handler, Hono } from 'hono';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { RepoAccess } from '../access/repo-access.js';
import type { AssetService } from '../assets/service.js';
import type { JobRunner } from '../jobs/runner.js';
import type { AuditLog } from '../audit/service.js';
import type { MigrationSet, TroveDb } from '../db/open.js';
import type { RepoRow } from '../db/schema.js';
import type { TroveEnv } from '../http/env.js';
import type { RepoService } from '../repos/service.js';
import type { SettingsRegistry } from '../settings/registry.js';
import type { SettingsGroup } from '../settings/types.js';

export interface UsageSnippet {
  title: string;
  /** Highlighting hint: `xml`, `kotlin`, `groovy`, `shell`, `ini`, ... */
  lang: string;
  code: string;
}

export interface UsageInput {
  /** The configured `base_url`, or the request's origin when it is empty. */
  baseUrl: string;
  repo: RepoRow;
}

/** A file an internal writer (the mirror) brings in: complete, fsynced and already verified by the caller. */
export interface ImportInput {
  repo: RepoRow;
  /** The file's path at its source, without a leading slash. */
  path: string;
  file: SpooledFile;
  contentType: string;
  /** The uploader's name at the source (never an address). */
  uploader: string;
  /**
   * The importer's record of the file, run with where it landed inside the transaction that makes
   * it visible in the repository (or that finds it already there): a kill at any moment then leaves
   * no file the importer does not know. A hook that does not call it leaves the importer to record
   * the file after the import resolves.
   */
  onImported?: (targetPath: string) => void;
}

export type ImportResult =
  | { status: 'created' | 'identical' | 'replaced'; /** Where the file landed in the repository. */ path: string }
  | { status: 'skipped'; reason: string };

/** What the opening step of a format route yields once the access rule passed. */
export interface OpenedRequest {
  repo: RepoRow;
  /** The decoded path after the repository name ('' for the repository itself). */
  path: string;
  trailingSlash: boolean;
  /** Recorded as an asset's uploader: the publish session's actor ('' on reads). */
  uploader: string;
}

/**
 * What a format may use, and nothing more: no users, no secrets, no credential
 * resolver. `db` is there for the format's own tables (Debian's index state).
 */
export interface FormatContext {
  /** The format's name: its routes are mounted under `/{name}`. */
  name: string;
  db: TroveDb;
  settings: SettingsRegistry;
  log: Logger;
  blobs: BlobStore;
  spool: Spool;
  repos: RepoService;
  assets: AssetService;
  access: RepoAccess;
  /** For a format's admin API routes (Debian records a signing-key replacement). */
  audit: AuditLog;
  /** `base_url`, or '' when unset. */
  baseUrl(): string;
  /** Long-running work with persisted records, resume after restart, progress and cancel (see jobs/index.ts). */
  jobs: JobRunner;
  /**
   * The one opening step of every format route: splits `/{name}/{repo}/{path}`, refuses
   * traversal with 400 and applies the access rule for `mode` to a repository of this format.
   */
  open(c: Context<TroveEnv>, mode: 'read' | 'write'): OpenedRequest;
  /**
   * Streams the request body into the spool, hashing sha256 plus `algorithms`, refused with 413
   * over `max_upload_bytes` (or over `maxBytes` when that is lower).
   */
  receive(c: Context<TroveEnv>, opts?: { algorithms?: HashAlgorithm[]; maxBytes?: number }): Promise<SpooledFile>;
}

/** One mounted format: built by `create`, owning its locks, caches and timers in its closure. */
export interface FormatInstance {
  /** Mounted at `/{name}`: paths inside are relative (`/:repo/*`), so the prefix holds by construction. */
  routes: Hono<TroveEnv>;
  /** Fixed public GET paths outside `/{name}` (`/keys/debian.asc`), no credential resolution. */
  publicRoutes?: Record<string, Handler<TroveEnv>>;
  /** Admin routes mounted under `/api` (e.g. `/settings/signing-key`). */
  apiRoutes?: Hono<TroveEnv>;
  /** Background work (index rebuilds); run after every module was created. */
  start?(): void | Promise<void>;
  /** Ends what `start` began. */
  stop?(): void | Promise<void>;
  /** `GET /api/repos/{name}/status`; `{}` when absent. */
  status?(repo: RepoRow): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Snippets for `GET /api/repos/{name}/usage`. Credentials come from the environment, never inline. */
  usage?(input: UsageInput): UsageSnippet[];
  /** A repository of this format was created or its config changed. */
  onRepoChange?(repo: RepoRow): void | Promise<void>;
  /**
   * An internal writer (the mirror) imports a file: the format indexes it as its upload route
   * would, or skips what it regenerates itself. Absent: a plain `assets.commit` (see assets/import.ts).
   * Its commits pass `importing: true`: the repository is locked while it is mirrored, and only imports may write.
   */
  importAsset?(input: ImportInput): Promise<ImportResult>;
  /** The import source deleted a file it had imported; absent: a plain `assets.delete`. */
  removeImported?(input: { repo: RepoRow; path: string }): Promise<boolean>;
}

/**
 * What a format declares about itself. The server lists formats explicitly (no
 * scanning) and refuses to start on an invalid or duplicate definition.
 */
export interface FormatDefinition<C extends Record<string, unknown> = Record<string, unknown>, I extends FormatInstance = FormatInstance> {
  kind: 'format';
  /** Lower-case name; also the first path segment of its routes (`/maven/...`). */
  name: string;
  title: string;
  defaultConfig: C;
  /** Validates a repository's `config`; an empty object becomes `defaultConfig`. */
  configSchema: z.ZodType<C>;
  /** The format's own settings group (Debian: `gpg.*`, `signing.key`, `deb.*`). */
  settings?: SettingsGroup;
  /** The format's own tables. */
  migrations?: MigrationSet;
  create(ctx: FormatContext): I | Promise<I>;
}

export const MODULE_NAME = /^[a-z][a-z0-9-]{1,31}$/;

/** Checks a definition's shape where it is declared, so a malformed plugin fails at boot, not at first request. */
export function defineFormat<C extends Record<string, unknown>, I extends FormatInstance = FormatInstance>(
  def: Omit<FormatDefinition<C, I>, 'kind'>,
): FormatDefinition<C, I> {
  if (!MODULE_NAME.test(def.name)) throw new Error(`format name "${def.name}" must match ${MODULE_NAME}`);
  if (!def.title) throw new Error(`format ${def.name}: title is required`);
  if (typeof def.create !== 'function') throw new Error(`format ${def.name}: create() is required`);
  const parsed = def.configSchema.safeParse(def.defaultConfig);
  if (!parsed.success) throw new Error(`format ${def.name}: defaultConfig does not satisfy configSchema`);
  return { ...def, kind: 'format' };
}

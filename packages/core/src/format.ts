import type { Hono } from 'hono';
import type { z } from 'zod';
import type { RepoRow } from './db/schema.js';
import type { MigrationSet } from './db/open.js';
import type { SettingsGroup } from './settings/types.js';
import type { FormatContext } from './context.js';
import type { TroveEnv } from './http/env.js';
import type { ImportInput, ImportResult } from './assets/import.js';

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

/**
 * What a format declares about itself. The server registers formats explicitly
 * (no scanning) and refuses to start on an invalid or duplicate definition.
 */
export interface FormatDefinition<C extends Record<string, unknown> = Record<string, unknown>> {
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
  /** Format routes, mounted at the server root: paths begin with `/${name}/` (plus fixed extras like `/keys/debian.asc`). */
  routes(ctx: FormatContext): Hono<TroveEnv>;
  /** Extra admin routes mounted under `/api` (e.g. `/settings/signing-key`). */
  apiRoutes?(ctx: FormatContext): Hono<TroveEnv>;
  /** Background work (index rebuilds). Called once after migrations and settings are loaded. */
  start?(ctx: FormatContext): void | Promise<void>;
  /** Ends what `start` began for this context (one process may hold several, e.g. tests). */
  stop?(ctx: FormatContext): void | Promise<void>;
  /** `GET /api/repos/{name}/status`; `{}` when absent. */
  status?(repo: RepoRow, ctx: FormatContext): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Snippets for `GET /api/repos/{name}/usage`. Credentials come from the environment, never inline. */
  usage?(input: UsageInput): UsageSnippet[];
  /** A repository of this format was created or its config changed. */
  onRepoChange?(repo: RepoRow, ctx: FormatContext): void | Promise<void>;
  /**
   * An internal writer (the mirror) imports a file: the format indexes it as its upload route
   * would, or skips what it regenerates itself. Absent: a plain `assets.commit` (see assets/import.ts).
   */
  importAsset?(input: ImportInput, ctx: FormatContext): Promise<ImportResult>;
  /** The import source deleted a file it had imported; absent: a plain `assets.delete`. */
  removeImported?(input: { repo: RepoRow; path: string }, ctx: FormatContext): Promise<boolean>;
}

const NAME = /^[a-z][a-z0-9-]{1,31}$/;

/** Checks a definition's shape at registration, so a malformed plugin fails at boot, not at first request. */
export function defineFormat<C extends Record<string, unknown>>(def: FormatDefinition<C>): FormatDefinition<C> {
  if (!NAME.test(def.name)) throw new Error(`format name "${def.name}" must match ${NAME}`);
  if (!def.title) throw new Error(`format ${def.name}: title is required`);
  if (typeof def.routes !== 'function') throw new Error(`format ${def.name}: routes() is required`);
  const parsed = def.configSchema.safeParse(def.defaultConfig);
  if (!parsed.success) throw new Error(`format ${def.name}: defaultConfig does not satisfy configSchema`);
  return def;
}

export interface FormatDescriptor {
  name: string;
  title: string;
  default_config: Record<string, unknown>;
  settings_group?: string;
}

export class FormatRegistry {
  private readonly formats = new Map<string, FormatDefinition<any>>();

  constructor(defs: FormatDefinition<any>[] = []) {
    defs.forEach((d) => this.add(d));
  }

  add(def: FormatDefinition<any>): void {
    if (this.formats.has(def.name)) throw new Error(`format ${def.name} registered twice`);
    this.formats.set(def.name, defineFormat(def));
  }
  get(name: string): FormatDefinition<any> | undefined {
    return this.formats.get(name);
  }
  all(): FormatDefinition<any>[] {
    return [...this.formats.values()];
  }
  describe(): FormatDescriptor[] {
    return this.all().map((f) => ({
      name: f.name,
      title: f.title,
      default_config: f.defaultConfig,
      ...(f.settings ? { settings_group: f.settings.name } : {}),
    }));
  }
}

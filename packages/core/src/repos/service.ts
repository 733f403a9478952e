import { asc, eq } from 'drizzle-orm';
import type { Generations } from '../cache/generations.js';
import type { TroveDb } from '../db/open.js';
import { repos, type RepoRow } from '../db/schema.js';
import { badRequest, conflict, notFound } from '../errors.js';
import type { z } from 'zod';

/** A format's config rules, looked up by name; undefined for an unknown format. */
export type FormatConfigLookup = (format: string) => { defaultConfig: Record<string, unknown>; configSchema: z.ZodType } | undefined;

export const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface RepoInput {
  name?: unknown;
  format?: unknown;
  config?: unknown;
  anonymous_read?: unknown;
  overwrite?: unknown;
}

/** The API shape of a repository. */
export function repoJson(r: RepoRow) {
  return {
    name: r.name,
    format: r.format,
    config: JSON.parse(r.config) as Record<string, unknown>,
    anonymous_read: r.anonymousRead,
    overwrite: r.overwrite,
    locked_by: r.lockedBy,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/**
 * Repositories. Lookups by name are on the hot path of every artifact request,
 * so rows are cached in memory; every change bumps the `access` generation in its
 * transaction, so this process and any other on the same database reload them.
 */
export class RepoService {
  private cache: Map<string, RepoRow> | null = null;
  private cacheGeneration = -1;
  private readonly listeners: ((r: RepoRow) => void | Promise<void>)[] = [];

  constructor(
    private readonly db: TroveDb,
    private readonly configOf: FormatConfigLookup,
    /** Registered format names, for the message about an unknown one. */
    private readonly formatNames: () => string[],
    private readonly generations: Generations,
  ) {}

  private rows(): Map<string, RepoRow> {
    const g = this.generations.current().access;
    if (!this.cache || g !== this.cacheGeneration) {
      this.cache = new Map(this.db.select().from(repos).orderBy(asc(repos.name)).all().map((r) => [r.name, r]));
      this.cacheGeneration = g;
    }
    return this.cache;
  }

  /** Writes `change` and bumps the `access` generation in one transaction. */
  private write<T>(change: (tx: TroveDb) => T): T {
    return this.db.transaction((tx) => {
      this.generations.bump('access', tx);
      return change(tx as unknown as TroveDb);
    });
  }

  byName(name: string): RepoRow | undefined {
    return this.rows().get(name);
  }
  byId(id: number): RepoRow | undefined {
    for (const r of this.rows().values()) if (r.id === id) return r;
    return undefined;
  }
  require(name: string): RepoRow {
    const r = this.byName(name);
    if (!r) throw notFound(`repository ${name} not found`);
    return r;
  }
  /** In name order. */
  list(): RepoRow[] {
    return [...this.rows().values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Called after a create or config change (formats react to `config`). */
  onChange(fn: (r: RepoRow) => void | Promise<void>): void {
    this.listeners.push(fn);
  }

  /** The config a repository of `format` would get from `config` (defaults when empty); 400 when the format refuses it. */
  validateConfig(format: string, config: unknown): Record<string, unknown> {
    const def = this.configOf(format);
    if (!def) throw badRequest(`unknown format ${format}; registered: ${this.formatNames().join(', ')}`);
    if (config === undefined || (config && typeof config === 'object' && !Array.isArray(config) && Object.keys(config).length === 0)) {
      return def.defaultConfig;
    }
    if (!config || typeof config !== 'object' || Array.isArray(config)) throw badRequest('config must be a JSON object');
    const r = def.configSchema.safeParse(config);
    if (!r.success) {
      const first = r.error.issues[0];
      throw badRequest(`invalid config for format ${format}: ${first ? `${first.path.join('.') || '(root)'}: ${first.message}` : 'rejected'}`);
    }
    return r.data as Record<string, unknown>;
  }

  async create(input: RepoInput): Promise<RepoRow> {
    if (typeof input.name !== 'string' || !REPO_NAME.test(input.name)) {
      throw badRequest('name must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit');
    }
    if (typeof input.format !== 'string') throw badRequest('format is required');
    const config = this.validateConfig(input.format, input.config);
    if (input.anonymous_read !== undefined && typeof input.anonymous_read !== 'boolean') throw badRequest('anonymous_read must be a boolean');
    if (input.overwrite !== undefined && input.overwrite !== 'allow' && input.overwrite !== 'deny') throw badRequest('overwrite must be "allow" or "deny"');
    if (this.byName(input.name)) throw conflict(`repository ${input.name} already exists`);
    const now = new Date();
    const values = {
      name: input.name,
      format: input.format,
      config: JSON.stringify(config),
      anonymousRead: (input.anonymous_read as boolean | undefined) ?? false,
      overwrite: (input.overwrite as 'allow' | 'deny' | undefined) ?? 'deny',
      createdAt: now,
      updatedAt: now,
    };
    const row = this.write((tx) => tx.insert(repos).values(values).returning().get());
    this.cache = null;
    for (const l of this.listeners) await l(row);
    return row;
  }

  async update(name: string, patch: RepoInput): Promise<RepoRow> {
    const current = this.require(name);
    if (patch.name !== undefined && patch.name !== name) throw badRequest('a repository cannot be renamed');
    if (patch.format !== undefined && patch.format !== current.format) throw badRequest('the format of a repository cannot change');
    const set: Partial<RepoRow> = { updatedAt: new Date() };
    if (patch.config !== undefined) set.config = JSON.stringify(this.validateConfig(current.format, patch.config));
    if (patch.anonymous_read !== undefined) {
      if (typeof patch.anonymous_read !== 'boolean') throw badRequest('anonymous_read must be a boolean');
      set.anonymousRead = patch.anonymous_read;
    }
    if (patch.overwrite !== undefined) {
      if (patch.overwrite !== 'allow' && patch.overwrite !== 'deny') throw badRequest('overwrite must be "allow" or "deny"');
      set.overwrite = patch.overwrite;
    }
    const row = this.write((tx) => tx.update(repos).set(set).where(eq(repos.id, current.id)).returning().get()!);
    this.cache = null;
    if (set.config !== undefined) for (const l of this.listeners) await l(row);
    return row;
  }

  /** Internal writers (the mirror) lock a repository against publishing; '' unlocks. */
  setLock(name: string, lockedBy: string): RepoRow {
    const current = this.require(name);
    const row = this.write((tx) => tx.update(repos).set({ lockedBy, updatedAt: new Date() }).where(eq(repos.id, current.id)).returning().get()!);
    this.cache = null;
    return row;
  }
}

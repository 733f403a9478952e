import { and, eq, notExists, sql } from 'drizzle-orm';
import { schema, type FormatContext } from '@trove/core';
import { buildDist, type BuildResult } from './build.js';
import { Rebuilder } from './rebuilder.js';
import { SigningKeys, type SigningKeysOptions } from './signing.js';
import { debPackages } from './schema.js';
import { DebianStore } from './store.js';

/** What one Debian format instance owns: its store, its signing keys and its rebuild timer. */
export interface DebianState {
  ctx: FormatContext;
  store: DebianStore;
  keys: SigningKeys;
  rebuilder: Rebuilder;
  /** Last builds, newest last (for logs and benchmarks). */
  lastBuilds: { repo: string; dist: string; result: BuildResult; ms: number }[];
  /**
   * Pool files whose packages have left the store but maybe not yet the published indexes: deleted
   * by the next rebuild once it has published, so an index never names a file that answers 404.
   */
  poolRemovals: { repoId: number; path: string }[];
  /**
   * Pool files an ingest has committed (or found already there) but whose package it has not
   * yet named, by `poolKey`, with how many ingests hold each: a rebuild must not delete them.
   */
  ingesting: Map<string, number>;
}

export interface DebianStateOptions {
  /** How the signing key is generated when none is stored (tests, or an embedder with its own source). */
  keys?: SigningKeysOptions;
}

/** Built once per instance by the format's `create`; nothing is kept at module level. */
export function createDebianState(ctx: FormatContext, opts: DebianStateOptions = {}): DebianState {
  const store = new DebianStore(ctx.db);
  const state: DebianState = {
    ctx,
    store,
    lastBuilds: [],
    poolRemovals: [],
    ingesting: new Map(),
    keys: new SigningKeys(ctx, () => {
      // A new key re-signs every distribution.
      store.markResign();
      state.rebuilder.notify();
    }, opts.keys),
    rebuilder: new Rebuilder(ctx, () => rebuildAll(state)),
  };
  return state;
}

/** Builds every distribution with dirty units, one after another, then deletes the pool files they no longer name. */
export async function rebuildAll(state: DebianState): Promise<void> {
  const due = state.poolRemovals.length; // their packages left the store before this build read it
  await buildDirty(state);
  // Taken off only now: until its file is gone, a removal counts as pending work (the repository's status).
  for (const removal of state.poolRemovals.splice(0, due)) {
    const { repoId, path } = removal;
    // Being imported again: decided by a later rebuild, once that ingest has named the file or failed.
    if (state.ingesting.has(poolKey(repoId, path))) {
      state.poolRemovals.push(removal);
      continue;
    }
    const repo = state.ctx.repos.byId(repoId);
    // Imported again meanwhile: the file is named once more.
    if (repo && !state.store.hasPackageFile(repoId, path)) state.ctx.assets.delete(repo, path);
  }
}

const poolKey = (repoId: number, path: string) => `${repoId}\0${path}`;

/**
 * Holds `path` against pool removals from before an ingest commits its file until it has named it
 * (or failed). The returned release asks for a rebuild when a removal of the file was put off meanwhile.
 */
export function holdPoolFile(state: DebianState, repoId: number, path: string): () => void {
  const key = poolKey(repoId, path);
  state.ingesting.set(key, (state.ingesting.get(key) ?? 0) + 1);
  return () => {
    const left = state.ingesting.get(key)! - 1;
    if (left) return void state.ingesting.set(key, left);
    state.ingesting.delete(key);
    if (state.poolRemovals.some((r) => r.repoId === repoId && r.path === path)) state.rebuilder.notify();
  };
}

async function buildDirty(state: DebianState): Promise<void> {
  for (const { repoId, dist } of state.store.dirtyDists()) {
    const repo = state.ctx.repos.byId(repoId);
    if (!repo) continue;
    const started = performance.now();
    const result = await buildDist(state.store, state.keys, repo, dist);
    if (!result) continue;
    const ms = Math.round(performance.now() - started);
    state.lastBuilds.push({ repo: repo.name, dist, result, ms });
    if (state.lastBuilds.length > 20) state.lastBuilds.shift();
    state.ctx.log.info({ repo: repo.name, dist, generation: result.generation, units: result.rebuiltUnits.length, ms }, 'debian indexes rebuilt');
  }
}

/**
 * Queues for removal every pool file no package names: left by a crash between a file's commit and
 * its package's, or by a removal the process did not live to finish (`poolRemovals` is memory). Run
 * at start, before the listener takes uploads. The next rebuild publishes first, and deletes a file
 * only if still no package names it (a resumed mirror import may have named it again meanwhile).
 */
export function queueOrphanPoolFiles(state: DebianState): number {
  const { db, name } = state.ctx;
  const { assets, repos } = schema;
  const named = db
    .select({ one: sql`1` })
    .from(debPackages)
    .where(and(eq(debPackages.repoId, assets.repoId), eq(debPackages.filename, assets.path)));
  const orphans = db
    .select({ repoId: assets.repoId, path: assets.path })
    .from(assets)
    .innerJoin(repos, eq(repos.id, assets.repoId))
    .where(and(eq(repos.format, name), notExists(named)))
    .all();
  state.poolRemovals.push(...orphans);
  return orphans.length;
}

import type { CoreContext, ImportInput, ImportResult, RepoRow } from '@trove/core';
import { configOf } from './config.js';
import { ingestDeb } from './ingest.js';
import { debianState } from './state.js';

/**
 * Imports from another repository manager (the mirror). A `.deb` goes through the upload
 * route's own ingest (control checks, identity rule, pool path, index units queued), into the
 * repository's configured `distribution` (default `stable`), component `main`. The source's
 * `dists/` files are skipped: Trove rebuilds its indexes and signs them with its own key, and a
 * foreign signature must never be served. Anything else is skipped with its reason.
 */
export async function importDeb(input: ImportInput, ctx: CoreContext): Promise<ImportResult> {
  const { repo, path, file, uploader } = input;
  if (!path.endsWith('.deb')) {
    await file.dispose();
    return { status: 'skipped', reason: path.startsWith('dists/') ? 'index files are rebuilt and signed by Trove' : 'not a binary package (.deb)' };
  }
  const dist = configOf(repo.config).distribution ?? 'stable';
  const { status, answer } = await ingestDeb(debianState(ctx), repo, dist, 'main', file, uploader);
  return { status: status === 201 ? 'created' : 'identical', path: answer.filename };
}

/** The source deleted a package: it leaves every distribution's index, then the pool. */
export async function removeImportedDeb({ repo, path }: { repo: RepoRow; path: string }, ctx: CoreContext): Promise<boolean> {
  const state = debianState(ctx);
  const removed = state.store.removePackageFile(repo.id, path);
  if (removed) state.rebuilder.notify();
  return ctx.assets.delete(repo, path) || removed;
}

import type { ImportInput, ImportResult, RepoRow } from '@trove/core';
import { configOf } from './config.js';
import { ingestDeb } from './ingest.js';
import type { DebianState } from './state.js';

/**
 * Imports from another repository manager (the mirror). A `.deb` goes through the upload
 * route's own ingest (control checks, identity rule, pool path, index units queued), into the
 * repository's configured `distribution` (default `stable`), component `main`. The source's
 * `dists/` files are skipped: Trove rebuilds its indexes and signs them with its own key, and a
 * foreign signature must never be served. Anything else is skipped with its reason.
 */
export async function importDeb(state: DebianState, input: ImportInput): Promise<ImportResult> {
  const { repo, path, file, uploader, onImported } = input;
  if (!path.endsWith('.deb')) {
    await file.dispose();
    return { status: 'skipped', reason: path.startsWith('dists/') ? 'index files are rebuilt and signed by Trove' : 'not a binary package (.deb)' };
  }
  const dist = configOf(repo.config).distribution ?? 'stable';
  const { status, answer } = await ingestDeb(state, repo, dist, 'main', file, uploader, { onImported });
  return { status: status === 201 ? 'created' : 'identical', path: answer.filename };
}

/**
 * The source deleted a package: it leaves every distribution's index now, and the pool once the
 * rebuilt indexes are published (`DebianState.poolRemovals`): until then apt may still be reading
 * an index that names it. A pool file no package names goes at once.
 */
export async function removeImportedDeb(state: DebianState, { repo, path }: { repo: RepoRow; path: string }): Promise<boolean> {
  if (!state.store.removePackageFile(repo.id, path)) return state.ctx.assets.delete(repo, path);
  state.poolRemovals.push({ repoId: repo.id, path });
  state.rebuilder.notify();
  return true;
}

import { fileURLToPath } from 'node:url';
import { defineFormat, invalidSettings, type FormatInstance, type MigrationSet } from '@trove/core';
import { debianApiRoutes } from './api.js';
import { importDeb, removeImportedDeb } from './import.js';
import { debianConfigSchema, defaultDebianConfig, type DebianConfig } from './config.js';
import { debianRoutes, publicKeyRoute } from './routes.js';
import { debianSettings } from './settings.js';
import { keyFromFiles, KeyFileError } from './signing.js';
import { createDebianState, queueOrphanPoolFiles, type DebianState, type DebianStateOptions } from './state.js';
import { debianUsage } from './usage.js';

export const debianMigrations: MigrationSet = {
  name: 'debian',
  folder: fileURLToPath(new URL('../drizzle', import.meta.url)),
};

/** A running Debian format; `state` is there for tests and benchmarks that look inside. */
export interface DebianInstance extends FormatInstance {
  state: DebianState;
}

async function start(state: DebianState): Promise<void> {
  const { ctx } = state;
  // Refuses start when gpg.key_file is set but missing or unusable (KeyFileError); a missing
  // stored key is generated in the background, so the server listens without waiting for it.
  await state.keys.start();
  ctx.settings.watch(['signing.key', 'gpg.key_file', 'gpg.passphrase_file'], () => state.keys.settingsChanged());
  // A PATCH naming an unusable key file is refused before anything is saved.
  ctx.settings.addPatchHook(async ({ changes, next }) => {
    if (!changes.has('gpg.key_file') && !changes.has('gpg.passphrase_file')) return;
    const file = String(next('gpg.key_file'));
    if (!file) return;
    try {
      await keyFromFiles(file, String(next('gpg.passphrase_file')));
    } catch (err) {
      if (err instanceof KeyFileError) throw invalidSettings('invalid settings', { 'gpg.key_file': err.message });
      throw err;
    }
  });
  // In the background: it loads the key (and openpgp), which a start need not wait for.
  void resignIfKeyChanged(state).catch((err) => ctx.log.error({ reason: (err as Error).message }, 'debian: could not check which key signed the published indexes'));
  const orphans = queueOrphanPoolFiles(state);
  if (orphans) ctx.log.info({ files: orphans }, 'debian: pool files no package names are deleted after the next rebuild');
  if (orphans || state.store.dirtyDists().length) state.rebuilder.notify();
}

/**
 * A key that changed while the server was down (another `gpg.key_file`, one cleared or set) is not a
 * live settings change: the published indexes would stay signed with the old key, which clients
 * fetching the new `/keys/debian.asc` cannot verify. Checked against one Release.gpg; all are re-signed.
 */
async function resignIfKeyChanged(state: DebianState): Promise<void> {
  const published = state.store.publishedDists()[0];
  const file = published && state.store.read(published.repoId, published.dist, 'Release.gpg');
  if (!file || (await state.keys.signedWithCurrent(file.body().toString('utf8')))) return;
  const n = state.store.markResign();
  state.ctx.log.info({ distributions: n }, 'debian: the signing key changed since the indexes were signed; signing them again');
  state.rebuilder.notify();
}

/** The Debian format; `opts` lets a test or an embedder choose how a missing signing key is generated. */
export function createDebianFormat(opts: DebianStateOptions = {}) {
  return defineFormat<DebianConfig, DebianInstance>({
    name: 'debian',
    title: 'Debian (apt)',
    defaultConfig: defaultDebianConfig,
    configSchema: debianConfigSchema,
    settings: debianSettings,
    migrations: debianMigrations,
    create(ctx) {
      const state = createDebianState(ctx, opts);
      return {
        state,
        routes: debianRoutes(state),
        publicRoutes: { '/keys/debian.asc': publicKeyRoute(state) },
        apiRoutes: debianApiRoutes(state),
        start: () => start(state),
        async stop() {
          if (state.poolRemovals.length) await state.rebuilder.flush(); // else their pool files would stay for good
          await state.rebuilder.stop();
          await state.keys.stop();
        },
        status: (repo) => ({ pending: state.store.pending(repo.id) + state.poolRemovals.filter((r) => r.repoId === repo.id).length }),
        usage: debianUsage,
        importAsset: (input) => importDeb(state, input),
        removeImported: (input) => removeImportedDeb(state, input),
        onRepoChange(repo) {
          // New architectures, origin or label: every distribution of the repository is rebuilt.
          if (state.store.markResign(repo.id)) state.rebuilder.notify();
        },
      };
    },
  });
}

export const debianFormat = createDebianFormat();

export { createDebianState, rebuildAll, type DebianState, type DebianStateOptions } from './state.js';
export type { SigningKeysOptions } from './signing.js';
export { ingestDeb, checkControl, type UploadAnswer } from './ingest.js';
export { readControlFile, CONTROL_LIMITS } from './deb/control.js';
export { debianSettings } from './settings.js';
export { isDebianVersion, poolPath } from './names.js';
export default debianFormat;

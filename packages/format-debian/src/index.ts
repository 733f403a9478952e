import { fileURLToPath } from 'node:url';
import { defineFormat, invalidSettings, type CoreContext, type MigrationSet } from '@trove/core';
import { debianApiRoutes } from './api.js';
import { importDeb, removeImportedDeb } from './import.js';
import { debianConfigSchema, defaultDebianConfig, type DebianConfig } from './config.js';
import { debianRoutes } from './routes.js';
import { debianSettings } from './settings.js';
import { keyFromFiles, KeyFileError } from './signing.js';
import { debianState } from './state.js';
import { debianUsage } from './usage.js';

export const debianMigrations: MigrationSet = {
  name: 'debian',
  folder: fileURLToPath(new URL('../drizzle', import.meta.url)),
};

async function start(ctx: CoreContext): Promise<void> {
  const state = debianState(ctx);
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
  if (state.store.dirtyDists().length) state.rebuilder.notify();
}

export const debianFormat = defineFormat<DebianConfig>({
  name: 'debian',
  title: 'Debian (apt)',
  defaultConfig: defaultDebianConfig,
  configSchema: debianConfigSchema,
  settings: debianSettings,
  migrations: debianMigrations,
  routes: debianRoutes,
  apiRoutes: debianApiRoutes,
  start,
  async stop(ctx) {
    const state = debianState(ctx);
    await state.rebuilder.stop();
    await state.keys.stop();
  },
  status(repo, ctx) {
    return { pending: debianState(ctx).store.pending(repo.id) };
  },
  usage: debianUsage,
  importAsset: importDeb,
  removeImported: removeImportedDeb,
  onRepoChange(repo, ctx) {
    // New architectures, origin or label: every distribution of the repository is rebuilt.
    const state = debianState(ctx);
    if (state.store.markResign(repo.id)) state.rebuilder.notify();
  },
});

export { debianState, rebuildAll, type DebianState, type DebianStateOptions } from './state.js';
export type { SigningKeysOptions } from './signing.js';
export { ingestDeb, checkControl, type UploadAnswer } from './ingest.js';
export { readControlFile, CONTROL_LIMITS } from './deb/control.js';
export { debianSettings } from './settings.js';
export { isDebianVersion, poolPath } from './names.js';
export default debianFormat;

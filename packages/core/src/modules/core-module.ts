import { repoRoutes } from '../api/repo-routes.js';
import { settingsRoutes } from '../api/settings-routes.js';
import { systemRoutes } from '../api/system-routes.js';
import { coreMigrations } from '../db/open.js';
import { coreSettingsGroups } from '../settings/core-settings.js';
import { createStorage } from '../storage/index.js';
import { defineModule, type AnyModule } from './contract.js';

/**
 * Core is a module like the others: its settings, its tables, its `/api` routes (settings,
 * repositories, system) and the storage subsystem (live store change, move, blob sweep), whose
 * interrupted jobs resume when core starts, before any listener opens.
 */
export const coreModule = defineModule({
  name: 'core',
  settings: coreSettingsGroups,
  migrations: coreMigrations,
  create: (ctx) => {
    const storage = createStorage(ctx);
    return {
      apiRoutes: [settingsRoutes(ctx), repoRoutes(ctx), systemRoutes(ctx), ...storage.apiRoutes],
      start: () => storage.start(),
      stop: () => storage.stop(),
    };
  },
});

/** Core first, always, whether or not a list names it. */
export const withCore = (modules: AnyModule[]): AnyModule[] => [coreModule, ...modules.filter((m) => m !== coreModule)];

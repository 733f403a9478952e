import { repoRoutes } from '../api/repo-routes.js';
import { settingsRoutes } from '../api/settings-routes.js';
import { systemRoutes } from '../api/system-routes.js';
import { coreMigrations } from '../db/open.js';
import { coreSettingsGroups } from '../settings/core-settings.js';
import { defineModule, type AnyModule } from './contract.js';

/** Core is a module like the others: its settings, its tables and its `/api` routes (settings, repositories, system). */
export const coreModule = defineModule({
  name: 'core',
  settings: coreSettingsGroups,
  migrations: coreMigrations,
  create: (ctx) => ({ apiRoutes: [settingsRoutes(ctx), repoRoutes(ctx), systemRoutes(ctx)] }),
});

/** Core first, always, whether or not a list names it. */
export const withCore = (modules: AnyModule[]): AnyModule[] => [coreModule, ...modules.filter((m) => m !== coreModule)];

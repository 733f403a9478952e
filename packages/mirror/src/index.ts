import { defineModule } from '@trove/core';
import { mirrorSettings } from './settings.js';

// The Nexus mirror (import, sync, cut-over) lands in a later issue; its settings group is
// registered now so `mirror.sync_interval` is part of the settings reference from the start.
export { mirrorSettings } from './settings.js';

/** The mirror as a module: settings only for now; its tables, routes and sync timer come with the mirror itself. */
export const mirrorModule = defineModule({
  name: 'mirror',
  settings: mirrorSettings,
  create: () => ({}),
});

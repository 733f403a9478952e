import { defineSettings } from '@trove/core/settings/types';

export const mirrorSettings = defineSettings({
  name: 'mirror',
  label: 'Mirror',
  settings: [
    { key: 'mirror.sync_interval', type: 'duration', default: '15m', label: 'Sync interval', help: 'Time between syncs of a mirroring external source. At least 1m.', min: 60_000 },
    { key: 'mirror.concurrency', type: 'int', default: 4, label: 'Parallel downloads', help: 'Files a sync downloads from an external source at once (1-64).', min: 1, max: 64 },
  ],
});

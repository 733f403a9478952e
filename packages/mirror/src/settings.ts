import { defineSettings } from '@trove/core';

export const mirrorSettings = defineSettings({
  name: 'mirror',
  label: 'Mirror',
  settings: [
    { key: 'mirror.sync_interval', type: 'duration', default: '15m', label: 'Sync interval', help: 'Time between syncs of a mirroring external source. At least 1m.', min: 60_000 },
  ],
});

import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createCore } from '@trove/core';
import { mirrorModule } from '../src/index.js';

const core = (env: Record<string, string>) =>
  createCore({ dataDir: mkdtempSync(join(tmpdir(), 'trove-mirror-')), masterKey: randomBytes(32), modules: [mirrorModule()], env, log: pino({ level: 'silent' }) });

describe('mirror settings', () => {
  it('defaults the sync interval to 15m and reads TR_MIRROR_SYNC_INTERVAL', async () => {
    const a = await core({});
    expect(a.settings.ms('mirror.sync_interval')).toBe(15 * 60_000);
    await a.close();
    const b = await core({ TR_MIRROR_SYNC_INTERVAL: '2h' });
    expect(b.settings.ms('mirror.sync_interval')).toBe(2 * 3_600_000);
    await b.close();
  });

  it('refuses an interval under one minute', async () => {
    await expect(core({ TR_MIRROR_SYNC_INTERVAL: '30s' })).rejects.toThrow(/TR_MIRROR_SYNC_INTERVAL: must be at least 1m/);
    const c = await core({});
    await expect(c.settings.patch({ 'mirror.sync_interval': '10s' })).rejects.toMatchObject({ status: 400, body: { fields: { 'mirror.sync_interval': 'must be at least 1m' } } });
    await c.close();
  });
});

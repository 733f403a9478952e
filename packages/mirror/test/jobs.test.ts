import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '@trove/core';
import { eventually, startRig, waitSync, type Rig } from './harness.js';

let rig: Rig;
afterEach(() => rig?.close());

async function mirrored(count: number) {
  rig = await startRig({ mirror: { client: { backoffMs: 5, timeoutMs: 5_000 } } });
  rig.nexus.addRepo('files', 'raw');
  for (let i = 0; i < count; i++) rig.nexus.put('files', `f${i}`, `x${i}`);
  const { body: s } = await rig.api('POST', '/mirror/sources', { name: 'nexus', base_url: rig.nexus.url, username: 'admin', password: 'admin123' });
  expect((await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }])).status).toBe(200);
  return s.id as string;
}

const syncJobs = () => rig.trove.ctx.db.$client.prepare("SELECT id, key, state FROM jobs WHERE kind = 'mirror.sync'").all() as { id: string; key: string; state: string }[];

describe('mirror syncs on the job facility', () => {
  it('runs a sync as a mirror.sync job keyed by its source, carrying the sync id and its progress', async () => {
    const id = await mirrored(30);
    rig.trove.ctx.settings.patch({ 'mirror.concurrency': 2 });
    rig.nexus.knobs.downloadDelayMs = 40;
    const started = await rig.api('POST', `/mirror/sources/${id}/sync`);
    expect(started.status).toBe(202);
    const job = rig.trove.ctx.jobs.active(`mirror:${id}`) as JobRecord<any, any>;
    expect(job).toMatchObject({ kind: 'mirror.sync', state: 'running', payload: { syncId: Number(started.body.id), sourceId: id } });
    const midway = await eventually(async () => {
      const p = rig.trove.ctx.jobs.get<any, any>(job.id)!.progress;
      return p.counters?.fetched > 0 && p;
    });
    expect(midway).toMatchObject({ syncId: Number(started.body.id), reposDone: 0, reposTotal: 1, repo: 'files' });
    rig.nexus.knobs.downloadDelayMs = 0;
    await waitSync(rig, started.body.id);
    const ended = await rig.trove.ctx.jobs.wait(job.id);
    expect(ended).toMatchObject({ state: 'done', progress: { syncId: Number(started.body.id), reposDone: 1, reposTotal: 1 } });
    expect(rig.trove.ctx.jobs.active(`mirror:${id}`)).toBeUndefined();
  });

  it('cancels through jobs.cancel: the sync record ends cancelled, and a new sync may start', async () => {
    const id = await mirrored(20);
    rig.nexus.knobs.downloadDelayMs = 200;
    const started = await rig.api('POST', `/mirror/sources/${id}/sync`);
    const job = rig.trove.ctx.jobs.active(`mirror:${id}`)!;
    expect(await rig.trove.ctx.jobs.cancel(job.id)).toMatchObject({ state: 'cancelled' });
    const sync = await rig.api('GET', `/mirror/syncs/${started.body.id}`);
    expect(sync.body).toMatchObject({ state: 'cancelled', repos: [{ state: 'cancelled' }] });
    expect((await rig.api('DELETE', `/mirror/syncs/${started.body.id}`)).status).toBe(409);
    rig.nexus.knobs.downloadDelayMs = 0;
    expect((await rig.api('POST', `/mirror/sources/${id}/sync`)).status).toBe(202);
  });

  it('resumes an interrupted sync once, on its same job, after a restart', async () => {
    const id = await mirrored(40);
    rig.trove.ctx.settings.patch({ 'mirror.concurrency': 2 });
    rig.nexus.knobs.downloadDelayMs = 60;
    const started = await rig.api('POST', `/mirror/sources/${id}/sync`);
    await eventually(async () => (rig.trove.ctx.db.$client.prepare('SELECT count(*) AS n FROM mirror_items').get() as { n: number }).n >= 10);
    await rig.restart();
    rig.nexus.knobs.downloadDelayMs = 0;
    expect(await waitSync(rig, started.body.id)).toMatchObject({ state: 'done', resumes: 1 });
    await eventually(async () => syncJobs()[0]?.state === 'done');
    expect(syncJobs()).toEqual([{ id: expect.any(String), key: `mirror:${id}`, state: 'done' }]);
  });

  it('ends a sync cancelled when the cancel was recorded but the process stopped before it finished', async () => {
    const id = await mirrored(20);
    rig.nexus.knobs.downloadDelayMs = 200;
    const started = await rig.api('POST', `/mirror/sources/${id}/sync`);
    const job = rig.trove.ctx.jobs.active(`mirror:${id}`)!;
    await eventually(async () => (await rig.api('GET', `/mirror/syncs/${started.body.id}`)).body.repos[0]?.state === 'running');
    rig.trove.ctx.db.$client.prepare("UPDATE jobs SET state = 'cancelling' WHERE id = ?").run(job.id);
    await rig.restart();
    expect(await waitSync(rig, started.body.id)).toMatchObject({ state: 'cancelled', resumes: 1, repos: [{ state: 'cancelled' }] });
    expect(await eventually(async () => rig.trove.ctx.jobs.get(job.id)?.state === 'cancelled' && true)).toBe(true);
  });
});

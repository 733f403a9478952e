import { Hono, type Context } from 'hono';
import { badRequest, conflict, decodeCursor, isString, page, pageLimit, readJson, readJsonObject, requireAdmin, type CoreContext, type TroveEnv } from '@trove/core';
import type { MappingRow, SourceRow, SyncRepoRow, SyncRow } from './schema.js';
import { FORMAT_OF } from './mapping-plan.js';
import { sourceProblem, type SourceService } from './sources.js';
import type { MirrorSyncs } from './sync/syncs.js';

const isInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0;

function syncId(raw: string): number {
  const n = Number(raw);
  if (!/^\d{1,15}$/.test(raw) || !isInt(n)) throw badRequest('sync id must be a positive integer');
  return n;
}

/**
 * `/api/mirror/...` (SPEC "External source (mirror) routes"), admin only. The source password
 * is never part of an answer; errors from the source map to 400 (refused credentials) or 502.
 */
export function mirrorApi(ctx: CoreContext, sources: SourceService, syncs: MirrorSyncs): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();
  const json = (c: Context<TroveEnv>) => readJsonObject(c, ctx.settings.int('max_json_bytes'));
  app.use('/mirror/*', async (c, next) => {
    requireAdmin(c);
    await next();
  });

  const mappingJson = (m: MappingRow) => ({ source_repo: m.sourceRepo, source_format: m.sourceFormat, target: ctx.repos.byId(m.targetRepoId)?.name ?? '' });
  const sourceJson = (s: SourceRow) => ({
    id: s.id,
    name: s.name,
    base_url: s.baseUrl,
    username: s.username,
    state: s.state,
    syncing: syncs.active(s.id) !== undefined,
    mapping: sources.mappings(s.id).map(mappingJson),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
    cut_over_at: s.cutOverAt?.toISOString() ?? null,
  });
  const repoCounters = (r: SyncRepoRow) => ({
    source_repo: r.sourceRepo,
    target: r.target,
    state: r.state,
    listed: r.listed,
    fetched: r.fetched,
    skipped_unchanged: r.skipped,
    deleted: r.deleted,
    failed: r.failed,
    bytes: r.bytes,
    error: r.error,
  });
  const syncJson = (s: SyncRow) => ({
    id: String(s.id),
    source_id: s.sourceId,
    trigger: s.trigger,
    state: s.state,
    error: s.error,
    resumes: s.resumes,
    started_at: s.startedAt.toISOString(),
    finished_at: s.finishedAt?.toISOString() ?? null,
    repos: syncs.repos(s.id).map(repoCounters),
  });

  // Admin actions go to the audit log under the source's name; a password is never part of the detail.
  const audit = (c: Context<TroveEnv>, action: string, source: SourceRow, detail: Record<string, unknown> = {}) => ctx.audit.recordFor(c, { action: `mirror.${action}`, target: source.name, detail: { id: source.id, ...detail } });

  app.post('/mirror/sources', async (c) => {
    const source = await sources.create(await json(c));
    audit(c, 'source.create', source, { base_url: source.baseUrl, username: source.username });
    return c.json(sourceJson(source), 201);
  });

  app.get('/mirror/sources', (c) => {
    const { items, last } = sources.list(decodeCursor(c.req.query('after'), isString), pageLimit(c.req.query('limit')));
    return c.json(page(items.map(sourceJson), last));
  });

  app.get('/mirror/sources/:id', async (c) => {
    const source = sources.get(c.req.param('id'));
    const mapped = sources.mappings(source.id);
    const mappedOnly = (why: string) =>
      mapped.map((m) => ({ name: m.sourceRepo, format: m.sourceFormat, type: 'hosted', target: ctx.repos.byId(m.targetRepoId)?.name ?? '', mirror_error: why }));
    if (source.state === 'cut_over') {
      const why = 'the source is cut over; its repositories are no longer read';
      return c.json({ ...sourceJson(source), mirror_error: why, repos: mappedOnly(why) });
    }
    try {
      const remote = await sources.remoteRepositories(source);
      const targets = new Map(mapped.map((m) => [m.sourceRepo, ctx.repos.byId(m.targetRepoId)?.name ?? '']));
      const repos = remote
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((r) => {
          const why = r.type !== 'hosted' ? `a ${r.type} repository holds no content of its own` : FORMAT_OF.has(r.format) ? '' : `format ${r.format} is not mirrored`;
          return { name: r.name, format: r.format, type: r.type, ...(r.distribution ? { distribution: r.distribution } : {}), ...(r.versionPolicy ? { version_policy: r.versionPolicy } : {}), ...(r.redeploy !== undefined ? { redeploy: r.redeploy } : {}), mappable: !why, ...(why ? { reason: why } : {}), target: targets.get(r.name) ?? '' };
        });
      return c.json({ ...sourceJson(source), mirror_error: '', repos });
    } catch (err) {
      const why = sourceProblem(err).message;
      return c.json({ ...sourceJson(source), mirror_error: why, repos: mappedOnly(why) });
    }
  });

  app.patch('/mirror/sources/:id', async (c) => {
    const body = await json(c);
    const source = await sources.update(c.req.param('id'), body);
    audit(c, 'source.update', source, { fields: Object.keys(body), base_url: source.baseUrl, username: source.username });
    return c.json(sourceJson(source));
  });

  app.delete('/mirror/sources/:id', (c) => {
    const source = sources.get(c.req.param('id'));
    if (syncs.active(source.id) !== undefined) throw conflict(`a sync of ${source.name} is running`);
    sources.delete(source.id);
    audit(c, 'source.delete', source);
    return c.body(null, 204);
  });

  app.put('/mirror/sources/:id/repos', async (c) => {
    const id = c.req.param('id');
    sources.get(id);
    const body = await readJson(c, ctx.settings.int('max_json_bytes'));
    const { mappings, created, reconfigured } = await sources.setMappings(id, body, () => syncs.active(id) !== undefined);
    const source = sources.get(id);
    for (const repo of created) ctx.audit.recordFor(c, { action: 'repo.create', target: repo.name, detail: { format: repo.format, mirror: source.name } });
    for (const repo of reconfigured) ctx.audit.recordFor(c, { action: 'repo.update', target: repo.name, detail: { mirror: source.name } });
    audit(c, 'mapping.set', source, { mapping: mappings.map(mappingJson) });
    return c.json({ items: mappings.map(mappingJson) });
  });

  app.post('/mirror/sources/:id/sync', (c) => {
    const source = sources.get(c.req.param('id'));
    if (source.state === 'cut_over') throw conflict(`source ${source.name} is cut over; it no longer syncs`);
    if (!sources.mappings(source.id).length) throw badRequest(`source ${source.name} has no mapped repositories (PUT .../repos first)`);
    const sync = syncs.start(source.id, 'manual');
    audit(c, 'sync.start', source, { sync: String(sync.id) });
    return c.json(syncJson(sync), 202);
  });

  app.post('/mirror/sources/:id/cutover', async (c) => {
    const source = sources.get(c.req.param('id'));
    if (source.state === 'cut_over') throw conflict(`source ${source.name} is already cut over`);
    sources.assertNotRemapping(source);
    if (!sources.mappings(source.id).length) {
      sources.markCutOver(source.id);
      audit(c, 'cutover', source);
      return c.json({ source: sourceJson(sources.get(source.id)) }, 202);
    }
    const cancelled = await syncs.makeWayForCutover(source.id);
    const sync = syncs.start(source.id, 'cutover');
    audit(c, 'cutover', source, { sync: String(sync.id), ...(cancelled !== undefined ? { cancelled_sync: String(cancelled) } : {}) });
    return c.json({ source: sourceJson(source), sync: syncJson(sync) }, 202);
  });

  app.get('/mirror/sources/:id/syncs', (c) => {
    const source = sources.get(c.req.param('id'));
    const { items, last } = syncs.history(source.id, decodeCursor(c.req.query('after'), isInt), pageLimit(c.req.query('limit')));
    return c.json(page(items.map(syncJson), last));
  });

  app.get('/mirror/syncs/:id', (c) => c.json(syncJson(syncs.get(syncId(c.req.param('id'))))));

  app.get('/mirror/syncs/:id/failures', (c) => {
    const sync = syncs.get(syncId(c.req.param('id')));
    const { items, last } = syncs.failures(sync.id, decodeCursor(c.req.query('after'), isInt), pageLimit(c.req.query('limit')));
    return c.json(page(items.map((f) => ({ source_repo: f.sourceRepo, path: f.path, reason: f.reason })), last));
  });

  app.delete('/mirror/syncs/:id', async (c) => {
    const sync = await syncs.cancel(syncId(c.req.param('id')));
    audit(c, 'sync.cancel', sources.get(sync.sourceId), { sync: String(sync.id) });
    return c.json(syncJson(sync));
  });

  return app;
}

import { Hono } from 'hono';
import type { Credential } from '../access/credential.js';
import { assetJson } from '../assets/service.js';
import type { CoreContext } from '../context.js';
import { badRequest } from '../errors.js';
import type { TroveEnv } from '../http/env.js';
import { requireAdmin } from '../http/guards.js';
import { readJsonObject } from '../http/json-body.js';
import { isString, listQuery, page, pageInMemory } from '../http/paging.js';
import { repoJson } from '../repos/service.js';

/** Origin for snippets when `base_url` is empty: the request's own. */
export function effectiveBaseUrl(ctx: CoreContext, url: string): string {
  return ctx.baseUrl() || new URL(url).origin;
}

export function repoRoutes(ctx: CoreContext) {
  const app = new Hono<TroveEnv>();
  const jsonLimit = () => ctx.settings.int('max_json_bytes');
  const visible = (cred: Credential) => ctx.repos.list().filter((r) => ctx.access.canRead(cred, r));

  app.get('/formats', (c) => c.json(ctx.formats.describe()));

  // SPEC "Lists return {items, next}": anonymous callers page the public repositories too.
  app.get('/repos', (c) => c.json(pageInMemory(visible(c.get('credential')).map(repoJson), (r) => r.name, listQuery(c, isString))));

  app.post('/repos', async (c) => {
    requireAdmin(c);
    const body = await readJsonObject(c, jsonLimit());
    const repo = await ctx.repos.create(body);
    ctx.audit.recordFor(c, { action: 'repo.create', target: repo.name, detail: { format: repo.format } });
    return c.json(repoJson(repo), 201);
  });

  app.get('/repos/:name', (c) => c.json(repoJson(ctx.access.requireRead(c.get('credential'), c.req.param('name')))));

  app.patch('/repos/:name', async (c) => {
    requireAdmin(c);
    const body = await readJsonObject(c, jsonLimit());
    const repo = await ctx.repos.update(c.req.param('name'), body);
    ctx.audit.recordFor(c, { action: 'repo.update', target: repo.name, detail: { fields: Object.keys(body) } });
    return c.json(repoJson(repo));
  });

  app.get('/repos/:name/permissions', (c) => {
    requireAdmin(c);
    const all = ctx.permissions.list(ctx.repos.require(c.req.param('name')));
    return c.json(pageInMemory(all, (p) => p.username, listQuery(c, isString)));
  });
  app.put('/repos/:name/permissions/:username', async (c) => {
    requireAdmin(c);
    const body = await readJsonObject(c, jsonLimit());
    const repo = ctx.repos.require(c.req.param('name'));
    const grant = ctx.permissions.set(repo, c.req.param('username'), body.level);
    ctx.audit.recordFor(c, { action: 'permission.set', target: `${repo.name}/${grant.username}`, detail: { level: grant.level } });
    return c.json(grant);
  });
  app.delete('/repos/:name/permissions/:username', (c) => {
    requireAdmin(c);
    const repo = ctx.repos.require(c.req.param('name'));
    ctx.permissions.remove(repo, c.req.param('username'));
    ctx.audit.recordFor(c, { action: 'permission.remove', target: `${repo.name}/${c.req.param('username')}` });
    return c.body(null, 204);
  });

  app.get('/repos/:name/assets', (c) => {
    const repo = ctx.access.requireRead(c.get('credential'), c.req.param('name'));
    const { after, limit } = listQuery(c, isString);
    const prefix = c.req.query('prefix') ?? '';
    const r = ctx.assets.list(repo, { prefix, after, limit });
    return c.json(page(r.items.map(assetJson), r.last));
  });

  app.get('/repos/:name/status', async (c) => {
    const repo = ctx.access.requireRead(c.get('credential'), c.req.param('name'));
    const status = (await ctx.formats.instance(repo.format)?.status?.(repo)) ?? {};
    return c.json(status);
  });

  app.get('/repos/:name/usage', (c) => {
    const repo = ctx.access.requireRead(c.get('credential'), c.req.param('name'));
    const baseUrl = effectiveBaseUrl(ctx, c.req.url);
    const snippets = ctx.formats.instance(repo.format)?.usage?.({ baseUrl, repo }) ?? [];
    return c.json({ base_url: baseUrl, snippets });
  });

  app.get('/search', (c) => {
    const q = (c.req.query('q') ?? '').trim();
    if (q.length < 3) throw badRequest('q must be at least 3 characters');
    // SQLite's LIKE ends a pattern at NUL: `%00%00%00` would match every path.
    if (/[\u0000-\u001f\u007f]/.test(q)) throw badRequest('q must not contain control characters');
    const cred = c.get('credential');
    const repoName = c.req.query('repo');
    const repos = repoName ? [ctx.access.requireRead(cred, repoName)] : visible(cred);
    const { after, limit } = listQuery(c, (v): v is { repoId: number; path: string } =>
      !!v && typeof v === 'object' && typeof (v as any).repoId === 'number' && typeof (v as any).path === 'string');
    const r = ctx.assets.search(repos.map((x) => x.id), q, { after, limit });
    return c.json(page(r.items.map((a) => ({ repo: a.repoName, ...assetJson(a) })), r.last));
  });

  return app;
}

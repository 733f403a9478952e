import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt } from 'drizzle-orm';
import { badGateway, badRequest, conflict, notFound, REPO_NAME, type CoreContext, type RepoRow } from '@trove/core';
import { NexusClient, NexusError, normalizeBaseUrl, type NexusClientOptions, type NexusRepository } from './nexus/client.js';
import { mirrorItems, mirrorMappings, mirrorSources, type MappingRow, type SourceRow } from './schema.js';

/** Source formats Trove mirrors, and the Trove format each becomes. */
export const FORMAT_OF: Record<string, string> = { maven2: 'maven', apt: 'debian', raw: 'raw' };

const SOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface MappingInput {
  source_repo: string;
  target: string;
  create: boolean;
}

/** A NexusError as the API's answer: refused credentials are the caller's 400, anything unreachable a 502. */
export function sourceProblem(err: unknown): Error {
  if (!(err instanceof NexusError)) return err as Error;
  if (err.kind === 'refused') return badRequest('the source refused the credentials');
  if (err.kind === 'invalid' && err.message.startsWith('base_url')) return badRequest(err.message);
  return badGateway(`the source is unreachable: ${err.message}`);
}

const passwordKey = (id: string) => `mirror.source.${id}.password`;

/**
 * External sources and their mappings. The password is sealed with core's SecretBox under a
 * name bound to the source id, never returned and never logged; every change of address or
 * credentials is checked against the source before it is saved.
 */
export class SourceService {
  constructor(
    private readonly ctx: CoreContext,
    private readonly clientOptions: NexusClientOptions = {},
  ) {}

  client(source: SourceRow): NexusClient {
    const password = this.ctx.secrets.open(passwordKey(source.id), source.passwordSealed);
    return new NexusClient({ baseUrl: source.baseUrl, username: source.username, password }, this.clientOptions);
  }

  get(id: string): SourceRow {
    const row = this.ctx.db.select().from(mirrorSources).where(eq(mirrorSources.id, id)).get();
    if (!row) throw notFound(`source ${id} not found`);
    return row;
  }

  all(): SourceRow[] {
    return this.ctx.db.select().from(mirrorSources).orderBy(asc(mirrorSources.name)).all();
  }

  list(after: string | undefined, limit: number): { items: SourceRow[]; last: string | null } {
    const rows = this.ctx.db
      .select()
      .from(mirrorSources)
      .where(after === undefined ? undefined : gt(mirrorSources.name, after))
      .orderBy(asc(mirrorSources.name))
      .limit(limit + 1)
      .all();
    const more = rows.length > limit;
    const items = more ? rows.slice(0, limit) : rows;
    return { items, last: more ? items[items.length - 1]!.name : null };
  }

  mappings(sourceId: string): MappingRow[] {
    return this.ctx.db.select().from(mirrorMappings).where(eq(mirrorMappings.sourceId, sourceId)).orderBy(asc(mirrorMappings.sourceRepo)).all();
  }

  async create(body: Record<string, unknown>): Promise<SourceRow> {
    const { name, base_url, username, password } = body;
    if (typeof name !== 'string' || !SOURCE_NAME.test(name)) throw badRequest('name must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit');
    if (typeof base_url !== 'string') throw badRequest('base_url is required');
    if (typeof username !== 'string' || username.length > 200) throw badRequest('username must be a string');
    if (typeof password !== 'string' || password.length > 1000) throw badRequest('password must be a string');
    let baseUrl: string;
    try {
      baseUrl = normalizeBaseUrl(base_url);
    } catch (err) {
      throw sourceProblem(err);
    }
    if (this.ctx.db.select({ id: mirrorSources.id }).from(mirrorSources).where(eq(mirrorSources.name, name)).get()) throw conflict(`source ${name} already exists`);
    await this.check(baseUrl, username, password);
    const id = randomUUID();
    const now = new Date();
    try {
      return this.ctx.db
        .insert(mirrorSources)
        .values({ id, name, baseUrl, username, passwordSealed: this.ctx.secrets.seal(passwordKey(id), password), createdAt: now, updatedAt: now })
        .returning()
        .get();
    } catch (err) {
      if (/UNIQUE/.test(String(err))) throw conflict(`source ${name} already exists`);
      throw err;
    }
  }

  async update(id: string, body: Record<string, unknown>): Promise<SourceRow> {
    const current = this.get(id);
    if (current.state === 'cut_over') throw conflict(`source ${current.name} is cut over; it is read-only history`);
    for (const k of Object.keys(body)) if (!['base_url', 'username', 'password'].includes(k)) throw badRequest(`unknown field ${k}; only base_url, username and password can change`);
    if (body.base_url !== undefined && typeof body.base_url !== 'string') throw badRequest('base_url must be a string');
    if (body.username !== undefined && (typeof body.username !== 'string' || body.username.length > 200)) throw badRequest('username must be a string');
    if (body.password !== undefined && (typeof body.password !== 'string' || body.password.length > 1000)) throw badRequest('password must be a string');
    let baseUrl = current.baseUrl;
    try {
      if (typeof body.base_url === 'string') baseUrl = normalizeBaseUrl(body.base_url);
    } catch (err) {
      throw sourceProblem(err);
    }
    const username = (body.username as string | undefined) ?? current.username;
    // As with secret settings, an empty password means "unchanged".
    const password = typeof body.password === 'string' && body.password !== '' ? body.password : this.ctx.secrets.open(passwordKey(id), current.passwordSealed);
    await this.check(baseUrl, username, password);
    return this.ctx.db
      .update(mirrorSources)
      .set({ baseUrl, username, passwordSealed: this.ctx.secrets.seal(passwordKey(id), password), updatedAt: new Date() })
      .where(eq(mirrorSources.id, id))
      .returning()
      .get()!;
  }

  delete(id: string): void {
    const source = this.get(id);
    if (source.state !== 'cut_over' && this.mappings(id).length) throw conflict(`source ${source.name} still mirrors repositories; map none (PUT .../repos []) or cut over first`);
    this.ctx.db.delete(mirrorSources).where(eq(mirrorSources.id, id)).run();
  }

  markCutOver(id: string): void {
    const source = this.get(id);
    for (const m of this.mappings(id)) {
      const repo = this.ctx.repos.byId(m.targetRepoId);
      if (repo && repo.lockedBy === lockName(source, m.sourceRepo)) this.ctx.repos.setLock(repo.name, '');
    }
    this.ctx.db.update(mirrorSources).set({ state: 'cut_over', cutOverAt: new Date(), updatedAt: new Date() }).where(eq(mirrorSources.id, id)).run();
  }

  async remoteRepositories(source: SourceRow, signal?: AbortSignal): Promise<NexusRepository[]> {
    try {
      return await this.client(source).repositories(signal);
    } catch (err) {
      throw sourceProblem(err);
    }
  }

  /**
   * Replaces the whole mapping. Every entry is checked against the source's repositories first
   * (hosted and of a mirrored format; proxies and groups hold no content of their own) and against
   * Trove's (format match, not mirrored by anyone else); only then are targets created and locked,
   * and targets no longer mapped unlocked. Imported-file records of a changed mapping are dropped,
   * so a new target is filled from scratch.
   */
  async setMappings(id: string, body: unknown, running: boolean): Promise<MappingRow[]> {
    const source = this.get(id);
    if (source.state === 'cut_over') throw conflict(`source ${source.name} is cut over; it is read-only history`);
    if (running) throw conflict(`a sync of ${source.name} is running; change the mapping when it ends`);
    const entries = parseMappings(body);
    const remote = new Map((await this.remoteRepositories(source)).map((r) => [r.name, r]));
    const current = new Map(this.mappings(id).map((m) => [m.sourceRepo, m]));
    const plan: { entry: MappingInput; remote: NexusRepository; format: string; existing?: RepoRow }[] = [];
    for (const entry of entries) {
      const r = remote.get(entry.source_repo);
      if (!r) throw badRequest(`the source has no repository ${entry.source_repo}`);
      if (r.type !== 'hosted') throw badRequest(`${r.name} is a ${r.type} repository: it holds no content of its own (map the hosted repositories behind it)`);
      const format = FORMAT_OF[r.format];
      if (!format) throw badRequest(`${r.name} has format ${r.format}; Trove mirrors maven2, apt and raw`);
      if (!this.ctx.formats.get(format)) throw badRequest(`format ${format} is not registered on this server`);
      const existing = this.ctx.repos.byName(entry.target);
      if (entry.create && existing && current.get(entry.source_repo)?.targetRepoId !== existing.id) throw conflict(`repository ${entry.target} already exists; map it with create: false`);
      if (!entry.create && !existing) throw badRequest(`repository ${entry.target} does not exist; set create: true to make it`);
      if (existing && existing.format !== format) throw badRequest(`repository ${entry.target} has format ${existing.format}, ${r.name} needs ${format}`);
      if (existing && existing.lockedBy && !existing.lockedBy.startsWith(`${source.name}/`)) throw conflict(`repository ${entry.target} is already mirrored from ${existing.lockedBy}`);
      plan.push({ entry, remote: r, format, ...(existing ? { existing } : {}) });
    }
    const targetsNow = new Set<number>();
    for (const p of plan) {
      let repo = p.existing;
      if (!repo) {
        const config = p.format === 'debian' && p.remote.distribution ? { architectures: ['amd64', 'arm64'], distribution: p.remote.distribution } : {};
        repo = await this.ctx.repos.create({ name: p.entry.target, format: p.format, config });
      } else if (p.format === 'debian' && p.remote.distribution) {
        const config = JSON.parse(repo.config) as Record<string, unknown>;
        if (config.distribution !== p.remote.distribution) repo = await this.ctx.repos.update(repo.name, { config: { ...config, distribution: p.remote.distribution } });
      }
      targetsNow.add(repo.id);
      this.ctx.repos.setLock(repo.name, lockName(source, p.entry.source_repo));
      p.existing = repo;
    }
    this.ctx.db.transaction((tx) => {
      for (const m of current.values()) {
        const kept = plan.find((p) => p.entry.source_repo === m.sourceRepo && p.existing!.id === m.targetRepoId);
        if (!kept) tx.delete(mirrorItems).where(and(eq(mirrorItems.sourceId, id), eq(mirrorItems.sourceRepo, m.sourceRepo))).run();
      }
      tx.delete(mirrorMappings).where(eq(mirrorMappings.sourceId, id)).run();
      for (const p of plan) tx.insert(mirrorMappings).values({ sourceId: id, sourceRepo: p.entry.source_repo, sourceFormat: p.remote.format, targetRepoId: p.existing!.id }).run();
    });
    for (const m of current.values()) {
      if (targetsNow.has(m.targetRepoId)) continue;
      const repo = this.ctx.repos.byId(m.targetRepoId);
      if (repo?.lockedBy.startsWith(`${source.name}/`)) this.ctx.repos.setLock(repo.name, '');
    }
    return this.mappings(id);
  }

  private async check(baseUrl: string, username: string, password: string): Promise<void> {
    try {
      await new NexusClient({ baseUrl, username, password }, { ...this.clientOptions, retries: 0 }).check();
    } catch (err) {
      throw sourceProblem(err);
    }
  }
}

/** `locked_by` of a mirrored repository: which source repository fills it. */
export const lockName = (source: SourceRow, sourceRepo: string) => `${source.name}/${sourceRepo}`;

function parseMappings(body: unknown): MappingInput[] {
  if (!Array.isArray(body)) throw badRequest('body must be an array of {source_repo, target, create}');
  if (body.length > 1000) throw badRequest('at most 1000 mappings');
  const sources = new Set<string>();
  const targets = new Set<string>();
  return body.map((e, i) => {
    if (!e || typeof e !== 'object' || Array.isArray(e)) throw badRequest(`entry ${i} must be an object`);
    const { source_repo, target, create } = e as Record<string, unknown>;
    if (typeof source_repo !== 'string' || !source_repo || source_repo.length > 200) throw badRequest(`entry ${i}: source_repo is required`);
    if (typeof target !== 'string' || !REPO_NAME.test(target)) throw badRequest(`entry ${i}: target must be a valid repository name`);
    if (create !== undefined && typeof create !== 'boolean') throw badRequest(`entry ${i}: create must be a boolean`);
    if (sources.has(source_repo)) throw badRequest(`${source_repo} is mapped twice`);
    if (targets.has(target)) throw badRequest(`${target} is the target of two source repositories`);
    sources.add(source_repo);
    targets.add(target);
    return { source_repo, target, create: create === true };
  });
}

import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt } from 'drizzle-orm';
import { badGateway, badRequest, conflict, notFound, type CoreContext, type RepoRow } from '@trove/core';
import { NexusClient, NexusError, normalizeBaseUrl, type NexusClientOptions, type NexusRepository } from './nexus/client.js';
import { assertEmptyTarget, parseMappings, planMappings, type PlannedMapping } from './mapping-plan.js';
import { mirrorItems, mirrorMappings, mirrorSources, type MappingRow, type SourceRow } from './schema.js';

const SOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** How long an admin request waits on the source (its connection check, its repository list) before answering 502. */
export const ANSWER_WITHIN_MS = 15_000;

/** A NexusError as the API's answer: refused credentials are the caller's 400, anything unreachable a 502. */
export function sourceProblem(err: unknown): Error {
  if (!(err instanceof NexusError)) return err as Error;
  if (err.kind === 'refused') return badRequest('the source refused the credentials');
  if (err.kind === 'invalid' && err.message.startsWith('base_url')) return badRequest(err.message);
  return badGateway(`the source is unreachable: ${err.message}`);
}

/** A saved mapping, and the repositories it created or whose config it changed (for the audit log). */
export interface MappingChange {
  mappings: MappingRow[];
  created: RepoRow[];
  reconfigured: RepoRow[];
}

const passwordKey = (id: string) => `mirror.source.${id}.password`;

/**
 * External sources and their mappings. The password is sealed with core's SecretBox under a
 * name bound to the source id, never returned and never logged; every change of address or
 * credentials is checked against the source before it is saved.
 */
export class SourceService {
  /** Sources whose mapping a request is changing: no sync, cut-over or delete starts meanwhile (see `setMappings`). */
  private readonly remapping = new Set<string>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly clientOptions: NexusClientOptions = {},
    private readonly answerWithinMs = ANSWER_WITHIN_MS,
  ) {}

  /** 409 while a request changes the source's mapping: a sync started meanwhile would fill targets being replaced. */
  assertNotRemapping(source: SourceRow): void {
    if (this.remapping.has(source.id)) throw conflict(`the mapping of ${source.name} is being changed; try again when that request has answered`);
  }

  /**
   * Runs a request to the source under this service's deadline: an admin request answers within it
   * (502 after), however the source stalls or retries.
   */
  async withDeadline<T>(request: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = AbortSignal.timeout(this.answerWithinMs);
    try {
      return await request(deadline);
    } catch (err) {
      if (deadline.aborted) throw badGateway(`the source did not answer within ${this.answerWithinMs / 1000} s`);
      throw sourceProblem(err);
    }
  }

  client(source: SourceRow): NexusClient {
    return new NexusClient({ baseUrl: source.baseUrl, username: source.username, password: this.password(source) }, this.clientOptions);
  }

  /** The stored password; a 409 saying what to do when it cannot be opened (a master key replaced without it). */
  private password(source: SourceRow): string {
    try {
      return this.ctx.secrets.open(passwordKey(source.id), source.passwordSealed);
    } catch {
      this.ctx.log.warn({ source: source.name }, 'mirror: the stored source password cannot be decrypted with the current master key');
      throw conflict(`the stored password of source ${source.name} cannot be decrypted (was the master key replaced?); PATCH the source with its password`);
    }
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
    for (const k of Object.keys(body)) if (!['name', 'base_url', 'username', 'password'].includes(k)) throw badRequest(`unknown field ${k}; a source has name, base_url, username and password`);
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
    // Another create of the name may have won while the check waited on the source.
    const created = this.ctx.db
      .insert(mirrorSources)
      .values({ id, name, baseUrl, username, passwordSealed: this.ctx.secrets.seal(passwordKey(id), password), createdAt: now, updatedAt: now })
      .onConflictDoNothing({ target: mirrorSources.name })
      .returning()
      .get();
    if (!created) throw conflict(`source ${name} already exists`);
    return created;
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
    // The stored password goes only to the address it was given for: another origin needs it typed again.
    if (new URL(baseUrl).origin !== new URL(current.baseUrl).origin && (typeof body.password !== 'string' || body.password === '')) {
      throw badRequest('base_url moves to another host; send the password with it');
    }
    const username = (body.username as string | undefined) ?? current.username;
    // As with secret settings, an empty password means "unchanged".
    const password = typeof body.password === 'string' && body.password !== '' ? body.password : this.password(current);
    await this.check(baseUrl, username, password);
    // The check waited on the source: the source may have been cut over or deleted meanwhile.
    const updated = this.ctx.db
      .update(mirrorSources)
      .set({ baseUrl, username, passwordSealed: this.ctx.secrets.seal(passwordKey(id), password), updatedAt: new Date() })
      .where(and(eq(mirrorSources.id, id), eq(mirrorSources.state, 'mirroring')))
      .returning()
      .get();
    if (updated) return updated;
    throw conflict(`source ${this.get(id).name} was cut over during the change; it is read-only history`);
  }

  delete(id: string): void {
    const source = this.get(id);
    this.assertNotRemapping(source);
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

  /** The source's repositories, within the deadline (502 after it, or when the source fails). */
  remoteRepositories(source: SourceRow): Promise<NexusRepository[]> {
    return this.withDeadline((signal) => this.client(source).repositories(signal));
  }

  /**
   * Replaces the whole mapping. Every entry is checked first: against the source's repositories
   * (hosted and of a mirrored format; proxies and groups hold no content of their own) and against
   * Trove's (format match, the target's config, not mirrored by another source, even one cut over,
   * whose history still names it). Only then are targets created and locked, the mapping written,
   * and targets no longer mapped unlocked; a failure on the way puts the locks back as they were.
   * Imported-file records of a changed mapping are dropped, so a new target is filled from scratch.
   * While this runs, no sync of the source starts (`assertNotRemapping`): one would fill targets
   * that are being replaced.
   */
  async setMappings(id: string, body: unknown, running: () => boolean): Promise<MappingChange> {
    const source = this.get(id);
    if (source.state === 'cut_over') throw conflict(`source ${source.name} is cut over; it is read-only history`);
    this.assertNotRemapping(source);
    if (running()) throw conflict(`a sync of ${source.name} is running; change the mapping when it ends`);
    const entries = parseMappings(body);
    this.remapping.add(id);
    try {
      const remote = new Map((await this.remoteRepositories(source)).map((r) => [r.name, r]));
      const plan = planMappings(this.ctx, source, entries, remote);
      return await this.applyMappings(source, plan);
    } finally {
      this.remapping.delete(id);
    }
  }

  private async applyMappings(source: SourceRow, plan: PlannedMapping[]): Promise<MappingChange> {
    const id = source.id;
    const current = this.mappings(id);
    const locksBefore = new Map<string, string>();
    const rulesBefore = new Map<string, { config: Record<string, unknown>; overwrite: 'allow' | 'deny' }>();
    const targets: RepoRow[] = [];
    const created: RepoRow[] = [];
    const reconfigured: RepoRow[] = [];
    const lock = (repo: RepoRow, sourceRepo: string) => {
      if (!locksBefore.has(repo.name)) locksBefore.set(repo.name, repo.lockedBy);
      return this.ctx.repos.setLock(repo.name, lockName(source, sourceRepo));
    };
    try {
      // Existing targets first: locked, then checked again under the lock (an upload that committed after the
      // plan's check would otherwise be taken for an import), before anything else about them changes.
      for (const p of plan) {
        if (!p.existing) continue;
        lock(p.existing, p.entry.source_repo);
        if (!p.kept) assertEmptyTarget(this.ctx, p.existing, p.entry.source_repo);
      }
      for (const p of plan) {
        const rules = { ...(p.config ? { config: p.config } : {}), ...(p.overwrite ? { overwrite: p.overwrite } : {}) };
        let repo: RepoRow;
        if (!p.existing) {
          created.push((repo = await this.ctx.repos.create({ name: p.entry.target, format: p.format, ...rules })));
          repo = lock(repo, p.entry.source_repo);
        } else if (p.config || p.overwrite) {
          rulesBefore.set(p.existing.name, { config: JSON.parse(p.existing.config) as Record<string, unknown>, overwrite: p.existing.overwrite });
          reconfigured.push((repo = await this.ctx.repos.update(p.existing.name, rules)));
        } else repo = p.existing;
        targets.push(repo);
      }
      this.ctx.db.transaction((tx) => {
        for (const m of current) {
          const kept = plan.some((p) => p.kept && p.entry.source_repo === m.sourceRepo);
          if (!kept) tx.delete(mirrorItems).where(and(eq(mirrorItems.sourceId, id), eq(mirrorItems.sourceRepo, m.sourceRepo))).run();
        }
        tx.delete(mirrorMappings).where(eq(mirrorMappings.sourceId, id)).run();
        plan.forEach((p, i) => tx.insert(mirrorMappings).values({ sourceId: id, sourceRepo: p.entry.source_repo, sourceFormat: p.remote.format, targetRepoId: targets[i]!.id }).run());
      });
    } catch (err) {
      // Checked above, so this is the unforeseen (an upload in between, a repository made meanwhile, a full disk):
      // leave no lock that no mapping explains, and no rule the source imposed. A repository made here stays,
      // empty and unlocked (core deletes none).
      const undo = async (name: string, what: string, fn: () => unknown) => {
        try {
          await fn();
        } catch (undoErr) {
          this.ctx.log.warn({ err: undoErr, repo: name }, `mirror: could not put back a ${what} after a failed mapping change`);
        }
      };
      for (const [name, rules] of rulesBefore) await undo(name, 'config', () => this.ctx.repos.update(name, rules));
      for (const [name, lockedBy] of locksBefore) await undo(name, 'lock', () => this.ctx.repos.setLock(name, lockedBy));
      throw err;
    }
    const targetsNow = new Set(targets.map((t) => t.id));
    for (const m of current) {
      if (targetsNow.has(m.targetRepoId)) continue;
      const repo = this.ctx.repos.byId(m.targetRepoId);
      if (repo?.lockedBy.startsWith(`${source.name}/`)) this.ctx.repos.setLock(repo.name, '');
    }
    return { mappings: this.mappings(id), created, reconfigured };
  }

  private check(baseUrl: string, username: string, password: string): Promise<void> {
    return this.withDeadline(async (signal) => {
      try {
        await new NexusClient({ baseUrl, username, password }, { ...this.clientOptions, retries: 0 }).check(signal);
      } catch (err) {
        // Something answers there, but not Nexus's REST API: most often a missing or extra context path.
        if (err instanceof NexusError && err.kind === 'status' && err.status === 404) throw badRequest(`base_url has no Nexus REST API (404 for ${baseUrl}/service/rest/v1/status); check the address and its context path`);
        throw err;
      }
    });
  }
}

/** `locked_by` of a mirrored repository: which source repository fills it. */
export const lockName = (source: SourceRow, sourceRepo: string) => `${source.name}/${sourceRepo}`;

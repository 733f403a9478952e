import { and, eq, ne } from 'drizzle-orm';
import { badRequest, conflict, REPO_NAME, type CoreContext, type RepoRow } from '@trove/core';
import type { NexusRepository } from './nexus/client.js';
import { mirrorMappings, mirrorSources, type SourceRow } from './schema.js';

/** Source formats Trove mirrors, and the Trove format each becomes (a Map: a format named `constructor` is no format). */
export const FORMAT_OF: ReadonlyMap<string, string> = new Map([
  ['maven2', 'maven'],
  ['apt', 'debian'],
  ['raw', 'raw'],
]);

export interface MappingInput {
  source_repo: string;
  target: string;
  create: boolean;
}

/** A checked mapping entry: its source repository, Trove format, existing target, and the config the target must get. */
export interface PlannedMapping {
  entry: MappingInput;
  remote: NexusRepository;
  format: string;
  existing: RepoRow | undefined;
  /** The target already mirrors this source repository (its files are the mirror's own imports). */
  kept: boolean;
  /** The target's new config, when the source's rules change it. */
  config: Record<string, unknown> | undefined;
  /** A raw target's new `overwrite`, when the source's redeploy rule changes it. */
  overwrite: 'allow' | 'deny' | undefined;
}

/**
 * Checks every entry of a mapping before anything changes: against the source's repositories
 * (hosted and of a mirrored format; proxies and groups hold no content of their own) and against
 * Trove's (format match, the target's config, not mirrored by another source, even one cut over,
 * whose history still names it).
 */
export function planMappings(ctx: CoreContext, source: SourceRow, entries: MappingInput[], remote: Map<string, NexusRepository>): PlannedMapping[] {
  const current = new Map(ctx.db.select().from(mirrorMappings).where(eq(mirrorMappings.sourceId, source.id)).all().map((m) => [m.sourceRepo, m]));
  return entries.map((entry) => {
    const r = remote.get(entry.source_repo);
    if (!r) throw badRequest(`the source has no repository ${entry.source_repo}`);
    if (r.type !== 'hosted') throw badRequest(`${r.name} is a ${r.type} repository: it holds no content of its own (map the hosted repositories behind it)`);
    const format = FORMAT_OF.get(r.format);
    if (!format) throw badRequest(`${r.name} has format ${r.format}; Trove mirrors maven2, apt and raw`);
    if (!ctx.formats.get(format)) throw badRequest(`format ${format} is not registered on this server`);
    const existing = ctx.repos.byName(entry.target);
    if (entry.create && existing && current.get(entry.source_repo)?.targetRepoId !== existing.id) throw conflict(`repository ${entry.target} already exists; map it with create: false`);
    if (!entry.create && !existing) throw badRequest(`repository ${entry.target} does not exist; set create: true to make it`);
    if (existing && existing.format !== format) throw badRequest(`repository ${entry.target} has format ${existing.format}, ${r.name} needs ${format}`);
    if (existing && existing.lockedBy && !existing.lockedBy.startsWith(`${source.name}/`)) throw conflict(`repository ${entry.target} is already mirrored from ${existing.lockedBy}`);
    if (existing) {
      const other = ctx.db.select().from(mirrorMappings).where(and(eq(mirrorMappings.targetRepoId, existing.id), ne(mirrorMappings.sourceId, source.id))).get();
      if (other) {
        const owner = ctx.db.select().from(mirrorSources).where(eq(mirrorSources.id, other.sourceId)).get();
        throw conflict(
          owner?.state === 'cut_over'
            ? `repository ${entry.target} keeps the history of source ${owner.name}, which is cut over; delete that source (DELETE /api/mirror/sources/${owner.id}) to mirror into ${entry.target} again`
            : `repository ${entry.target} is already mirrored from ${owner?.name ?? 'another source'}/${other.sourceRepo}`,
        );
      }
    }
    // A mirror makes its target what the source repository holds, replacing files as the source does: in a
    // repository holding files of its own, it would replace released files, and the maven-metadata.xml that
    // lists them, with the source's.
    const kept = existing !== undefined && current.get(entry.source_repo)?.targetRepoId === existing.id;
    if (existing && !kept) assertEmptyTarget(ctx, existing, r.name);
    // The source's rules carry over (an apt repository's distribution, a maven2 one's version policy); checked by
    // the format now, not half-way through the changes.
    let config: Record<string, unknown> | undefined;
    const carried = carriedConfig(format, r);
    if (carried) {
      const base = existing ? (JSON.parse(existing.config) as Record<string, unknown>) : format === 'debian' ? { architectures: ['amd64', 'arm64'] } : {};
      if (Object.entries(carried).some(([k, v]) => base[k] !== v)) config = { ...base, ...carried };
    }
    if (config) ctx.repos.validateConfig(format, config);
    // Nexus's redeploy rule becomes a raw repository's `overwrite`: CI that replaces files keeps working after the cut-over.
    const wanted = format === 'raw' && r.redeploy !== undefined ? (r.redeploy ? 'allow' : 'deny') : undefined;
    const overwrite = wanted !== undefined && wanted !== (existing?.overwrite ?? 'deny') ? wanted : undefined;
    return { entry, remote: r, format, existing, kept, config, overwrite };
  });
}

/** The part of a target's config the source repository decides, when its settings were readable. */
function carriedConfig(format: string, remote: NexusRepository): Record<string, unknown> | undefined {
  if (format === 'debian' && remote.distribution) return { distribution: remote.distribution };
  if (format === 'maven' && remote.versionPolicy) return { version_policy: remote.versionPolicy };
  return undefined;
}

/** Refuses a target that holds files: a mirror fills a new or an empty repository (see `planMappings`). */
export function assertEmptyTarget(ctx: CoreContext, repo: RepoRow, sourceRepo: string): void {
  const { items } = ctx.assets.list(repo, { limit: 1 });
  if (items.length > 0) {
    throw conflict(`repository ${repo.name} already holds files (${items[0]!.path}, ...); a mirror fills a new or empty repository: map ${sourceRepo} with create: true and a new name`);
  }
}

/** A mapping PUT's body: `[{source_repo, target, create}]`, each source repository and target at most once. */
export function parseMappings(body: unknown): MappingInput[] {
  if (!Array.isArray(body)) throw badRequest('body must be an array of {source_repo, target, create}');
  if (body.length > 1000) throw badRequest('at most 1000 mappings');
  const sources = new Set<string>();
  const targets = new Set<string>();
  return body.map((e, i) => {
    if (!e || typeof e !== 'object' || Array.isArray(e)) throw badRequest(`entry ${i} must be an object`);
    for (const k of Object.keys(e)) if (!['source_repo', 'target', 'create'].includes(k)) throw badRequest(`entry ${i}: unknown field ${k}; an entry has source_repo, target and create`);
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

import { z } from 'zod';

/** What Nexus 3's REST API answers (see NEXUS-API.md), as the mirror reads it: every answer is hostile input, checked here. */

export type NexusErrorKind = 'refused' | 'unreachable' | 'status' | 'timeout' | 'invalid' | 'foreign_url' | 'changed' | 'too_large';

export class NexusError extends Error {
  constructor(
    readonly kind: NexusErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'NexusError';
  }
  /** Worth another try: the source's 5xx, 429, a dropped connection or a timeout. */
  get transient(): boolean {
    return this.kind === 'unreachable' || this.kind === 'timeout' || (this.kind === 'status' && (this.status! >= 500 || this.status === 429));
  }
}

export interface NexusCredentials {
  baseUrl: string;
  username: string;
  password: string;
}

/** Nexus's `maven.versionPolicy`, in Trove's spelling (the maven format's `version_policy`). */
export type VersionPolicy = 'release' | 'snapshot' | 'mixed';

export interface NexusRepository {
  name: string;
  format: string;
  type: string;
  /** apt only: the hosted repository's one distribution, from repositorySettings when readable. */
  distribution?: string;
  /** maven2 only: which versions the repository takes, from repositorySettings when readable. */
  versionPolicy?: VersionPolicy;
  /** Whether a stored file may be deployed again (Nexus's `storage.writePolicy`), from repositorySettings when readable. */
  redeploy?: boolean;
}

export interface NexusChecksums {
  sha1?: string;
  sha256?: string;
  sha512?: string;
  md5?: string;
}

/** A listing entry that fails the schema: its path when that much is readable (so it is known to exist), and why. */
export interface UnreadableEntry {
  path: string | null;
  reason: string;
}

export interface NexusAsset {
  /** Without the leading slash. */
  path: string;
  downloadUrl: string;
  checksum: NexusChecksums;
  fileSize: number | null;
  contentType: string | null;
  uploader: string | null;
}

const hexOf = (n: number) => z.string().regex(new RegExp(`^[0-9a-fA-F]{${n}}$`)).transform((s) => s.toLowerCase());
/** Nexus's own rule for repository names (letters, digits, '-', '_', '.'; never a leading '.'): a name such as '..' would leave the content root. */
export const REPO_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
const repoSchema = z.object({ name: z.string().regex(REPO_NAME), format: z.string().max(50), type: z.string().max(50) });
const settingEntrySchema = z
  .object({
    name: z.string(),
    apt: z.object({ distribution: z.string().max(100) }).nullish(),
    maven: z.object({ versionPolicy: z.enum(['RELEASE', 'SNAPSHOT', 'MIXED']).nullish() }).loose().nullish(),
    storage: z.object({ writePolicy: z.enum(['ALLOW', 'ALLOW_ONCE', 'DENY']).nullish() }).loose().nullish(),
  })
  .loose();
const pathSchema = z.string().min(1).max(4096);
const assetSchema = z.object({
  path: pathSchema,
  downloadUrl: z.string().max(8192).nullish(),
  checksum: z.object({ sha1: hexOf(40).nullish(), sha256: hexOf(64).nullish(), sha512: hexOf(128).nullish(), md5: hexOf(32).nullish() }).nullish(),
  fileSize: z.number().int().nonnegative().nullish(),
  // Not worth refusing a file over: an odd content type becomes none (octet-stream), a long name is cut.
  contentType: z
    .string()
    .nullish()
    .transform((v) => (v && v.length <= 200 ? v : null)),
  uploader: z
    .string()
    .nullish()
    .transform((v) => v?.slice(0, 200) ?? null),
});
const pageSchema = z.object({ items: z.array(z.unknown()).max(10_000), continuationToken: z.string().max(4096).nullish() });


/** The repository list, each name once (as first listed); entries that are not repositories are left out. */
export function readRepositoryList(answer: unknown): Array<Pick<NexusRepository, 'name' | 'format' | 'type'>> {
  const list = z.array(z.unknown()).max(100_000).safeParse(answer);
  if (!list.success) throw new NexusError('invalid', 'the repository list is not a Nexus answer');
  const byName = new Map<string, Pick<NexusRepository, 'name' | 'format' | 'type'>>();
  for (const r of list.data) {
    const p = repoSchema.safeParse(r);
    if (p.success && !byName.has(p.data.name)) byName.set(p.data.name, p.data);
  }
  return [...byName.values()];
}

/** What `repositorySettings` adds to a repository: an apt one's distribution, a maven2 one's version policy, the redeploy rule. */
export type RepositorySettings = Pick<NexusRepository, 'distribution' | 'versionPolicy' | 'redeploy'>;

/** Each repository's settings from `repositorySettings`; an entry that cannot be read adds nothing. */
export function readRepositorySettings(answer: unknown): Map<string, RepositorySettings> {
  const byName = new Map<string, RepositorySettings>();
  for (const entry of Array.isArray(answer) ? answer : []) {
    const e = settingEntrySchema.safeParse(entry);
    if (!e.success) continue;
    const policy = e.data.maven?.versionPolicy;
    const write = e.data.storage?.writePolicy;
    byName.set(e.data.name, {
      ...(e.data.apt ? { distribution: e.data.apt.distribution } : {}),
      ...(policy ? { versionPolicy: policy.toLowerCase() as VersionPolicy } : {}),
      // ALLOW_ONCE ("disable redeploy") and DENY (read-only) both keep a stored file as it is.
      ...(write ? { redeploy: write === 'ALLOW' } : {}),
    });
  }
  return byName;
}

export interface AssetPage {
  items: NexusAsset[];
  unreadable: UnreadableEntry[];
  /** The next page's token; none on the last page. */
  token: string | null;
}

/** One page of `/assets`: entries failing the schema are reported as unreadable (with their path when readable), not dropped. */
export function readAssetPage(answer: unknown, repository: string): AssetPage {
  const page = pageSchema.safeParse(answer);
  if (!page.success) throw new NexusError('invalid', `asset listing of ${repository} is not a Nexus answer`);
  const items: NexusAsset[] = [];
  const unreadable: UnreadableEntry[] = [];
  for (const raw of page.data.items) {
    const a = assetSchema.safeParse(raw);
    if (!a.success) {
      const path = pathSchema.safeParse((raw as { path?: unknown } | null)?.path);
      const fields = [...new Set(a.error.issues.map((i) => String(i.path[0] ?? 'entry')))].join(', ');
      unreadable.push({ path: path.success ? path.data.replace(/^\/+/, '') : null, reason: `unreadable ${fields}` });
      continue;
    }
    const c = a.data.checksum ?? {};
    items.push({
      path: a.data.path.replace(/^\/+/, ''),
      downloadUrl: a.data.downloadUrl ?? '',
      checksum: { ...(c.sha1 ? { sha1: c.sha1 } : {}), ...(c.sha256 ? { sha256: c.sha256 } : {}), ...(c.sha512 ? { sha512: c.sha512 } : {}), ...(c.md5 ? { md5: c.md5 } : {}) },
      fileSize: a.data.fileSize ?? null,
      contentType: a.data.contentType ?? null,
      uploader: a.data.uploader ?? null,
    });
  }
  return { items, unreadable, token: page.data.continuationToken ?? null };
}

/** `http(s)://host[:port][/context]` without a trailing slash; anything else is refused. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new NexusError('invalid', 'base_url must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new NexusError('invalid', 'base_url must start with http:// or https://');
  if (url.username || url.password || url.search || url.hash) throw new NexusError('invalid', 'base_url must not carry credentials, a query or a fragment');
  return url.origin + url.pathname.replace(/\/+$/, '');
}

import { createHash } from 'node:crypto';
import type { RepoRow } from '@trove/core';
import { configOf } from './config.js';
import { partChunks, updateSegments, type Segment, type SegmentKey } from './segments.js';
import type { SigningKeys } from './signing.js';
import type { DebianStore, NewFile } from './store.js';

/**
 * A file's size and hashes, fed chunk by chunk (a unit's Packages is never copied into one buffer
 * here); with `parts` it is stored as its segments, else `chunks` are its bytes.
 */
function describe(path: string, chunks: Buffer[], parts?: Segment[]): NewFile {
  const md5 = createHash('md5');
  const sha256 = createHash('sha256');
  const sha512 = createHash('sha512');
  let size = 0;
  for (const c of chunks) {
    md5.update(c);
    sha256.update(c);
    sha512.update(c);
    size += c.length;
  }
  return {
    path,
    ...(parts ? { parts } : { data: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }),
    size,
    md5: md5.digest('hex'),
    sha256: sha256.digest('hex'),
    sha512: sha512.digest('hex'),
  };
}

/** RFC 2822 date as Debian's archive writes it (`Mon, 23 Nov 2026 12:00:00 UTC`). */
const releaseDate = (d: Date) => d.toUTCString().replace(/GMT$/, 'UTC');

const UNIT_FILES = ['Packages', 'Packages.gz', 'Packages.xz'];

/** Which keys of a unit changed since its last build, or 'full' (new unit, or a mark without a package). */
type UnitWork = SegmentKey[] | 'full';

/**
 * One (component, architecture) unit: its segments brought up to date from the stored control
 * paragraphs (never from the .deb files); Packages, Packages.gz and Packages.xz are joined from
 * them once, to be hashed, and stored as lists of segments.
 */
async function buildUnit(store: DebianStore, repoId: number, dist: string, component: string, arch: string, work: UnitWork, prev?: string | null) {
  const current = work === 'full' || !prev ? [] : store.segments(prev);
  const update = await updateSegments(current, work, {
    all: () => store.unitPackages(repoId, dist, component, arch),
    range: (lo, hi) => store.unitRange(repoId, dist, component, arch, lo, hi),
  });
  const dir = `${component}/binary-${arch}`;
  return {
    files: UNIT_FILES.map((name) => describe(`${dir}/${name}`, partChunks(name, update.segments), update.segments)),
    stats: { segments: update.segments.length, rebuilt: update.compressed },
  };
}

export interface BuildResult {
  generation: number;
  rebuiltUnits: string[];
  /** Per rebuilt unit: how many segments it has and how many were compressed again. */
  segments: Record<string, { segments: number; rebuilt: number }>;
}

/**
 * Brings one distribution up to date: rebuilds the units marked dirty (or new), reuses
 * the stored files and hashes of all others, writes and signs `Release`, and publishes
 * the new generation in one transaction. Cost: the changed units plus one row per index file.
 */
export async function buildDist(store: DebianStore, keys: SigningKeys, repo: RepoRow, dist: string): Promise<BuildResult | null> {
  const { units: dirty, maxSeq } = store.dirtyUnits(repo.id, dist);
  if (!maxSeq) return null;
  const cfg = configOf(repo.config);
  const origin = cfg.origin ?? 'Trove';
  const label = cfg.label ?? repo.name;
  const arches = [...new Set([...cfg.architectures, ...store.arches(repo.id, dist)])].sort();
  const cur = store.current(repo.id, dist);
  const prev = new Map((cur ? store.files(repo.id, dist, cur.generation) : []).map((f) => [f.path, f]));
  // A component published before stays, empty once its last package is gone: a Release without it would
  // list no index at all, which apt refuses ("No Hash entry"), and clients' sources.lines still name it.
  const published = [...prev.keys()].flatMap((p) => /^([^/]+)\/binary-[^/]+\/Packages$/.exec(p)?.[1] ?? []);
  const components = [...new Set([...store.components(repo.id, dist), ...published])].sort();

  const work = new Map<string, UnitWork>();
  const add = (unit: string, key: SegmentKey | null) => {
    const w = work.get(unit);
    if (w === 'full') return;
    if (!key) work.set(unit, 'full');
    else if (w) w.push(key);
    else work.set(unit, [key]);
  };
  for (const c of components) for (const a of arches) if (!prev.has(`${c}/binary-${a}/Packages`)) add(`${c}/${a}`, null);
  for (const d of dirty) {
    if (!d.component || !components.includes(d.component)) continue;
    const key = d.package !== null && d.version !== null ? ([d.package, d.version, d.arch] as const) : null;
    for (const a of d.arch === 'all' ? arches : [d.arch]) add(`${d.component}/${a}`, key);
  }

  const files: NewFile[] = [];
  const segments: BuildResult['segments'] = {};
  for (const c of components) {
    for (const a of arches) {
      const unit = `${c}/${a}`;
      const w = work.get(unit);
      if (w) {
        // A unit last built before segments existed (its Packages is a blob) is cut afresh.
        const built = await buildUnit(store, repo.id, dist, c, a, w, prev.get(`${c}/binary-${a}/Packages`)?.segments);
        files.push(...built.files);
        segments[unit] = built.stats;
      } else {
        for (const name of UNIT_FILES) files.push(prev.get(`${c}/binary-${a}/${name}`)!);
      }
      // Tiny, and carries Origin and Label, which a repository change may have changed.
      const release = `Archive: ${dist}\nOrigin: ${origin}\nLabel: ${label}\nComponent: ${c}\nArchitecture: ${a}\n`;
      files.push(describe(`${c}/binary-${a}/Release`, [Buffer.from(release)]));
    }
  }

  const hashes = (field: 'md5' | 'sha256' | 'sha512') => files.map((f) => ` ${f[field]} ${String(f.size).padStart(16)} ${f.path}`).join('\n');
  const release =
    [
      `Origin: ${origin}`,
      `Label: ${label}`,
      `Suite: ${dist}`,
      `Codename: ${dist}`,
      `Date: ${releaseDate(new Date())}`,
      `Architectures: ${arches.join(' ')}`,
      `Components: ${components.join(' ')}`,
      `Description: ${label} ${dist}`,
      'Acquire-By-Hash: yes',
      `MD5Sum:\n${hashes('md5')}`,
      `SHA256:\n${hashes('sha256')}`,
      `SHA512:\n${hashes('sha512')}`,
    ].join('\n') + '\n';
  const signed = await keys.sign(release);
  files.push(describe('Release', [Buffer.from(release)]), describe('InRelease', [Buffer.from(signed.inRelease)]), describe('Release.gpg', [Buffer.from(signed.releaseGpg)]));

  const generation = (cur?.generation ?? 0) + 1;
  store.publish(repo.id, dist, generation, files, maxSeq);
  return { generation, rebuiltUnits: [...work.keys()].sort(), segments };
}

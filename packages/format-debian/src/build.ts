import { createHash } from 'node:crypto';
import type { RepoRow } from '@trove/core';
import { gzip, xz } from './compress.js';
import { configOf } from './config.js';
import type { SigningKeys } from './signing.js';
import type { DebianStore, IndexFile } from './store.js';

type NewFile = IndexFile & { data?: Buffer };

function describe(path: string, data: Buffer): NewFile {
  return {
    path,
    data,
    size: data.length,
    md5: createHash('md5').update(data).digest('hex'),
    sha256: createHash('sha256').update(data).digest('hex'),
    sha512: createHash('sha512').update(data).digest('hex'),
  };
}

/** RFC 2822 date as Debian's archive writes it (`Mon, 23 Nov 2026 12:00:00 UTC`). */
const releaseDate = (d: Date) => d.toUTCString().replace(/GMT$/, 'UTC');

const UNIT_FILES = ['Packages', 'Packages.gz', 'Packages.xz', 'Release'];

/**
 * One (component, architecture) unit: `Packages` from the stored control paragraphs
 * (never from the .deb files), its gzip and xz forms, and the per-unit `Release`.
 */
async function buildUnit(store: DebianStore, repo: RepoRow, dist: string, component: string, arch: string, origin: string, label: string): Promise<NewFile[]> {
  const parts: string[] = [];
  for (const p of store.unitPackages(repo.id, dist, component, arch)) {
    parts.push(`${p.control}\nFilename: ${p.filename}\nSize: ${p.size}\nMD5sum: ${p.md5}\nSHA256: ${p.sha256}\n`);
  }
  const packages = Buffer.from(parts.join('\n'), 'utf8');
  const [gz, x] = await Promise.all([gzip(packages), xz(packages)]);
  const dir = `${component}/binary-${arch}`;
  const release = `Archive: ${dist}\nOrigin: ${origin}\nLabel: ${label}\nComponent: ${component}\nArchitecture: ${arch}\n`;
  return [describe(`${dir}/Packages`, packages), describe(`${dir}/Packages.gz`, gz), describe(`${dir}/Packages.xz`, x), describe(`${dir}/Release`, Buffer.from(release))];
}

export interface BuildResult {
  generation: number;
  rebuiltUnits: string[];
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
  const components = store.components(repo.id, dist);
  const arches = [...new Set([...cfg.architectures, ...store.arches(repo.id, dist)])].sort();
  const cur = store.current(repo.id, dist);
  const prev = new Map((cur ? store.files(repo.id, dist, cur.generation) : []).map((f) => [f.path, f]));

  const rebuild = new Set<string>();
  for (const c of components) for (const a of arches) if (!prev.has(`${c}/binary-${a}/Packages`)) rebuild.add(`${c}/${a}`);
  for (const d of dirty) {
    if (!d.component || !components.includes(d.component)) continue;
    for (const a of d.arch === 'all' ? arches : [d.arch]) rebuild.add(`${d.component}/${a}`);
  }

  const files: NewFile[] = [];
  for (const c of components) {
    for (const a of arches) {
      if (rebuild.has(`${c}/${a}`)) files.push(...(await buildUnit(store, repo, dist, c, a, origin, label)));
      else for (const name of UNIT_FILES) files.push(prev.get(`${c}/binary-${a}/${name}`)!);
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
  files.push(describe('Release', Buffer.from(release)), describe('InRelease', Buffer.from(signed.inRelease)), describe('Release.gpg', Buffer.from(signed.releaseGpg)));

  const generation = (cur?.generation ?? 0) + 1;
  store.publish(repo.id, dist, generation, files, maxSeq);
  return { generation, rebuiltUnits: [...rebuild].sort() };
}

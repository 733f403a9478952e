import type { AssetRow, AssetService, RepoRow } from '@trove/core';
import { checksumSuffix } from './layout.js';

/** Sorts after every path below `dir/`: lets a listing jump over a whole subdirectory in one query. */
const PAST = '/\u{10FFFF}';
const PAGE = 200;

export interface Child {
  name: string;
  /** The stored file, or undefined for a directory. */
  asset?: AssetRow;
  /** A checksum the server derives from `asset` (listed like Maven Central lists its side files). */
  derived?: { size: number };
}

/**
 * The direct children of `dir` ('' for the root), straight from the asset index: files, and
 * directories found by jumping over each one's contents (one indexed range query per
 * directory), so a version with thousands of files costs the same as one with two.
 */
export function listChildren(assets: AssetService, repo: RepoRow, dir: string, max = 10_000): { children: Child[]; truncated: boolean } {
  const prefix = dir ? dir + '/' : '';
  const children: Child[] = [];
  let after: string | undefined;
  for (;;) {
    const page = assets.list(repo, { prefix, after, limit: PAGE });
    let jumped = false;
    for (const a of page.items) {
      const rest = a.path.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (children.length >= max) return { children, truncated: true };
      if (slash < 0) {
        children.push({ name: rest, asset: a });
        after = a.path;
      } else {
        const name = rest.slice(0, slash);
        children.push({ name });
        after = prefix + name + PAST;
        jumped = true;
        break;
      }
    }
    if (!jumped && page.last === null) return { children, truncated: false };
  }
}

/** True when at least one stored file lives below `dir`. */
export function isDirectory(assets: AssetService, repo: RepoRow, dir: string): boolean {
  return assets.list(repo, { prefix: dir + '/', limit: 1 }).items.length > 0;
}

/**
 * Versions of an artifact that have files in the index: subdirectories of `artifactDir`
 * holding `artifactId-<version>...` files. Used to merge metadata, so a version whose
 * deploy lost the metadata race still appears. A checksum does not count: one stored as an
 * asset is held for a file that has not landed (and may never), and a version made only of
 * those would be `latest` with nothing to download.
 */
export function indexedVersions(assets: AssetService, repo: RepoRow, artifactDir: string, artifactId: string): string[] {
  const prefix = artifactDir + '/';
  const versions: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = assets.list(repo, { prefix, after, limit: PAGE });
    let jumped = false;
    for (const a of page.items) {
      const parts = a.path.slice(prefix.length).split('/');
      const dir = parts[0]!;
      const isVersionFile =
        parts.length === 2 &&
        !checksumSuffix(parts[1]!) &&
        (parts[1]!.startsWith(`${artifactId}-${dir}`) || (dir.endsWith('-SNAPSHOT') && parts[1]!.startsWith(`${artifactId}-${dir.slice(0, -9)}-`)));
      if (isVersionFile) versions.push(dir);
      if (isVersionFile || parts.length > 2) {
        after = prefix + dir + PAST;
        jumped = true;
        break;
      }
      after = a.path;
    }
    if (!jumped && page.last === null) return versions;
  }
}

/**
 * Adds the `.md5` and `.sha1` every file has (derived on GET) beside each stored file, in name order.
 * A stored checksum without its file is held for an upload still to come; a GET of it is 404, so it
 * is not listed either.
 */
export function withChecksums(children: Child[]): Child[] {
  const names = new Set(children.map((c) => c.name));
  const out: Child[] = [];
  for (const c of children) {
    const algorithm = c.asset && checksumSuffix(c.name);
    if (algorithm && !names.has(c.name.slice(0, -(algorithm.length + 1)))) continue;
    out.push(c);
    if (!c.asset || algorithm) continue;
    for (const [alg, size] of [['md5', 32], ['sha1', 40]] as const) {
      if (!names.has(`${c.name}.${alg}`)) out.push({ name: `${c.name}.${alg}`, asset: c.asset, derived: { size } });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** An index page like Maven Central's: names, dates and sizes, relative links. */
export function renderIndex(repoName: string, dir: string, children: Child[], truncated: boolean): string {
  const title = `/${repoName}/${dir ? dir + '/' : ''}`;
  const rows = children.map((c) => {
    const href = encodeURIComponent(c.name) + (c.asset ? '' : '/');
    const label = escapeHtml(c.name + (c.asset ? '' : '/'));
    const date = c.asset ? c.asset.updatedAt.toISOString().slice(0, 16).replace('T', ' ') : '-';
    const size = c.derived ? String(c.derived.size) : c.asset ? String(c.asset.size) : '-';
    return `<a href="${href}" title="${label}">${label}</a>${' '.repeat(Math.max(1, 60 - label.length))}${date.padEnd(20)}${size.padStart(12)}`;
  });
  const parent = dir ? '<a href="../">../</a>\n' : '';
  return `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;margin:1.5em}pre{font-family:monospace;font-size:14px}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<hr>
<pre id="contents">
${parent}${rows.join('\n')}
</pre>
${truncated ? '<p>Only the first entries are shown.</p>\n' : ''}<hr>
</body>
</html>
`;
}

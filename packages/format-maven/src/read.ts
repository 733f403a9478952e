import type { Context } from 'hono';
import { notFound, redirectOption, serveAsset, serveBytes, type AssetRow, type RepoRow, type TroveEnv } from '@trove/core';
import { checkSegments, checksumSuffix, METADATA, parseMavenPath, splitSuffix, type ArtifactFile, type ChecksumAlgorithm, type MavenPath } from './layout.js';
import { isDirectory, listChildren, renderIndex, withChecksums } from './listing.js';
import { snapshotBuildFor } from './metadata.js';
import type { MavenState } from './state.js';

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/**
 * GET and HEAD. Order: checksum side files (always derived from the file they describe,
 * so they can never disagree with it), stored files, `-SNAPSHOT` names of timestamped
 * builds, then directories (redirected to their `/` form, which answers an HTML index). A path that is none of these is a 404,
 * or a 400 when it is not even a Maven layout path.
 */
export function readHandler(st: MavenState): (c: Context<TroveEnv>) => Promise<Response> {
  const { ctx } = st;

  const serve = (c: Context<TroveEnv>, asset: AssetRow) =>
    serveAsset(c, ctx.blobs, asset, {
      redirect: redirectOption(ctx.settings),
      filename: asset.path.slice(asset.path.lastIndexOf('/') + 1),
      ...(asset.path.includes(METADATA) ? { cacheControl: 'no-cache' } : {}),
      // Stored files, maven-metadata.xml and a SNAPSHOT name's build are all read from asset rows
      // (every write bumps the `assets` generation), for whoever may read the repository.
      answerFromMemory: true,
    });

  /** `widget-1.0-SNAPSHOT.jar` → the newest timestamped build named in the version's metadata. */
  async function snapshotBuild(repo: RepoRow, p: ArtifactFile): Promise<AssetRow | undefined> {
    const meta = ctx.assets.get(repo, `${p.dir}/${METADATA}`);
    if (!meta) return undefined;
    let build: string | null;
    try {
      const doc = await st.snapshotDocs.of(meta);
      if (!doc) return undefined;
      const { classifier, extension } = splitSuffix(p.suffix);
      build = snapshotBuildFor(doc, classifier, extension);
    } catch {
      return undefined;
    }
    return build ? ctx.assets.get(repo, `${p.dir}/${p.artifactId}-${build}${p.suffix}`) : undefined;
  }

  /** A checksum side file, derived from the stored file (sha512 hashed once, then remembered). */
  async function checksum(c: Context<TroveEnv>, target: AssetRow, algorithm: ChecksumAlgorithm) {
    const hex = await st.digests.of(target, algorithm);
    return serveBytes(
      c,
      {
        etag: `"${algorithm}-${target.sha256}"`,
        lastModified: target.updatedAt,
        size: hex.length,
        contentType: 'text/plain; charset=utf-8',
        cacheControl: 'private, max-age=0, must-revalidate',
      },
      () => Buffer.from(hex),
      // Derived from the asset row it describes (its digests, or a content-addressed sha512):
      // half of a Maven or Gradle build's GETs are these.
      { answerFromMemory: true },
    );
  }

  function index(c: Context<TroveEnv>, repo: RepoRow, dir: string) {
    const { children, truncated } = listChildren(ctx.assets, repo, dir);
    const listed = withChecksums(children);
    if (dir && !listed.length) throw notFound(`${dir}/ not found`);
    return c.html(renderIndex(repo.name, dir, listed, truncated), 200, { 'Cache-Control': 'no-cache' });
  }

  return async (c: Context<TroveEnv>) => {
    const { repo, path, trailingSlash } = ctx.open(c, 'read');
    if (!path) {
      if (!trailingSlash) return c.redirect(`/maven/${encodeURIComponent(repo.name)}/`, 301);
      return index(c, repo, '');
    }
    checkSegments(path);
    if (trailingSlash) return index(c, repo, path);

    const algorithm = checksumSuffix(path.slice(path.lastIndexOf('/') + 1));
    const answer = (asset: AssetRow) => (algorithm ? checksum(c, asset, algorithm) : serve(c, asset));
    const target = algorithm ? path.slice(0, -(algorithm.length + 1)) : path;
    // A stored checksum is one held for a file not yet uploaded: it is nothing to derive a checksum from.
    const stored = algorithm && checksumSuffix(target.slice(target.lastIndexOf('/') + 1)) ? undefined : ctx.assets.get(repo, target);
    if (stored) return answer(stored);

    // Not stored: the layout tells a SNAPSHOT alias, a directory, a 404 and a 400 apart, parsed once.
    let p: MavenPath | undefined;
    let invalid: unknown;
    try {
      p = parseMavenPath(path);
    } catch (err) {
      invalid = err;
    }
    const file = p?.kind === 'checksum' ? p.target : p;
    const build = file?.kind === 'artifact' && file.snapshotAlias ? await snapshotBuild(repo, file) : undefined;
    if (build) return answer(build);
    if (isDirectory(ctx.assets, repo, path)) {
      return c.redirect(`/maven/${encodeURIComponent(repo.name)}/${encodePath(path)}/`, 301);
    }
    if (invalid) throw invalid; // 400 for what is not a Maven path at all
    throw notFound(`${path} not found`);
  };
}

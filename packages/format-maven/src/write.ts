import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Context } from 'hono';
import type { SpooledFile } from '@trove/blobstore';
import { badRequest, conflict, readBody, type AssetRow, type RepoRow, type TroveEnv } from '@trove/core';
import { configOf } from './config.js';
import { contentTypeOf } from './content-type.js';
import { hashStream, readSmall } from './digests.js';
import {
  CHECKSUM_ALGORITHMS,
  CHECKSUM_LENGTHS,
  isMutable,
  isSnapshotVersion,
  parseMavenPath,
  versionOf,
  type ChecksumAlgorithm,
  type ChecksumFile,
  type MavenPath,
  type MetadataFile,
} from './layout.js';
import { indexedVersions } from './listing.js';
import { checkMetadataMatchesPath, isArtifactLevel, MAX_METADATA_BYTES, mergeMetadata, parseMetadata, serializeMetadata, type MetadataDoc } from './metadata.js';
import { pathKey, type MavenState } from './state.js';

/** Larger than any checksum file in any format clients write. */
const MAX_CHECKSUM_BYTES = 4096;

function checkVersionPolicy(repo: RepoRow, p: MavenPath): void {
  const version = versionOf(p);
  if (!version) return;
  const policy = configOf(repo).version_policy;
  if (policy === 'release' && isSnapshotVersion(version)) throw badRequest(`repository ${repo.name} has version policy release and does not accept SNAPSHOT version ${version}`);
  if (policy === 'snapshot' && !isSnapshotVersion(version)) throw badRequest(`repository ${repo.name} has version policy snapshot and accepts only -SNAPSHOT versions, not ${version}`);
}

/** `hex`, `hex  file.jar` (sha1sum) or `SHA1(file.jar)= hex` (openssl): the digest, lower case. */
export function parseChecksumText(text: string, algorithm: ChecksumFile['algorithm']): string {
  const tokens = text.trim().split(/\s+/);
  const re = new RegExp(`^[0-9a-fA-F]{${CHECKSUM_LENGTHS[algorithm]}}$`);
  const hex = [tokens[0], tokens[tokens.length - 1]].find((t) => t && re.test(t));
  if (!hex) throw badRequest(`not a ${algorithm} checksum: expected ${CHECKSUM_LENGTHS[algorithm]} hex digits`);
  return hex.toLowerCase();
}

const answer = (c: Context<TroveEnv>, r: { status: string; asset: AssetRow }) =>
  c.json({ path: r.asset.path, size: r.asset.size, sha256: r.asset.sha256 }, r.status === 'created' ? 201 : 200);

/**
 * PUT. Three kinds of path: artifact files (immutable unless under a -SNAPSHOT directory),
 * checksum side files (verified against the file they describe) and maven-metadata.xml
 * (merged with what the server knows, under a per-path lock).
 */
export function writeHandler(st: MavenState): (c: Context<TroveEnv>) => Promise<Response> {
  const { ctx } = st;

  /** Checksum assets beside `path` that no longer describe it are removed; GETs derive them meanwhile. */
  function dropChecksums(repo: RepoRow, path: string) {
    for (const alg of CHECKSUM_ALGORITHMS) ctx.assets.delete(repo, `${path}.${alg}`);
  }

  /** Checksums uploaded before their file (parallel uploads), held until it arrives. */
  function heldChecksums(repo: RepoRow, path: string): { algorithm: ChecksumAlgorithm; asset: AssetRow }[] {
    return CHECKSUM_ALGORITHMS.flatMap((algorithm) => {
      const asset = ctx.assets.get(repo, `${path}.${algorithm}`);
      return asset ? [{ algorithm, asset }] : [];
    });
  }

  /** Paths of the held checksums that disagree with the file's bytes. */
  async function disagreeingChecksums(held: { algorithm: ChecksumAlgorithm; asset: AssetRow }[], file: SpooledFile): Promise<string[]> {
    const bad: string[] = [];
    for (const { algorithm, asset } of held) {
      const want = (await readSmall(ctx.blobs, asset)).toString('utf8').trim();
      const have = file.hashes[algorithm] ?? (await hashStream(createReadStream(file.path), algorithm));
      if (want !== have) bad.push(asset.path);
    }
    return bad;
  }

  async function putFile(c: Context<TroveEnv>, repo: RepoRow, p: MavenPath, uploader: string) {
    const file = await ctx.receive(c, { algorithms: ['sha1', 'md5'] });
    const mutable = isMutable(p);
    return st.locks.run(pathKey(repo.id, p.path), async () => {
      let pending: string[] = [];
      try {
        if (!ctx.assets.get(repo, p.path)) {
          const held = heldChecksums(repo, p.path);
          pending = held.map((h) => h.asset.path);
          const bad = await disagreeingChecksums(held, file);
          if (bad.length && !mutable) {
            // A held checksum checks one upload of its file: kept, it would refuse every retry of a
            // client that uploads the file before its checksums (Maven, Gradle), for good.
            pending.forEach((x) => ctx.assets.delete(repo, x));
            throw conflict(`${p.path} does not match the checksum uploaded before it (${bad.join(', ')}); that checksum is dropped`, 'checksum_mismatch');
          }
        }
      } catch (err) {
        await file.dispose();
        throw err;
      }
      const r = await ctx.assets.commit({
        repo,
        path: p.path,
        file,
        contentType: contentTypeOf(p.path),
        uploader,
        onExisting: mutable ? 'replace' : 'conflict',
        conflictMessage: `${p.path} is a release file and cannot change; deploy a new version instead`,
        conflictCode: 'release_immutable',
      });
      // From now on the file's checksums are derived from it: held copies are no longer needed.
      if (r.status === 'replaced') dropChecksums(repo, p.path);
      else pending.forEach((x) => ctx.assets.delete(repo, x));
      return answer(c, r);
    });
  }

  /**
   * A checksum of a stored file is verified and acknowledged with 200 but not stored: GETs
   * derive it from the file, so a stored copy could only ever be redundant or wrong, and a
   * deploy's six checksum uploads cost no disk write. A checksum whose file has not arrived
   * yet is held (201) until the file does.
   */
  async function putChecksum(c: Context<TroveEnv>, repo: RepoRow, p: ChecksumFile, uploader: string) {
    const body = await readBody(c, Math.min(ctx.settings.int('max_upload_bytes'), MAX_CHECKSUM_BYTES));
    const hex = parseChecksumText(body.toString('utf8'), p.algorithm);
    return st.locks.run(pathKey(repo.id, p.target.path), async () => {
      const target = ctx.assets.get(repo, p.target.path);
      if (target) {
        const actual = await st.digests.of(target, p.algorithm);
        // The server may have stored a merged metadata document; the client's checksum describes what it sent.
        const ofSubmission = p.target.kind === 'metadata' && st.submissions.has(pathKey(repo.id, p.target.path), `${p.algorithm}:${hex}`);
        if (actual !== hex && !ofSubmission) throw conflict(`${p.algorithm} ${hex} does not match the stored ${p.target.path} (${actual}); checksum refused`, 'checksum_mismatch');
        return c.json({ path: p.path, size: actual.length, sha256: createHash('sha256').update(actual).digest('hex') }, 200);
      }
      // Held in canonical form (bare lower-case hex), so a retry in another notation is an identical retry.
      const r = await ctx.assets.commitBytes({ repo, path: p.path, bytes: hex, contentType: 'text/plain', uploader, onExisting: 'replace' });
      return answer(c, r);
    });
  }

  async function putMetadata(c: Context<TroveEnv>, repo: RepoRow, p: MetadataFile, uploader: string) {
    // Bounded while receiving: an oversized document ends with 413 at its limit, not after spooling up to max_upload_bytes.
    const file = await ctx.receive(c, { maxBytes: MAX_METADATA_BYTES, algorithms: ['sha1', 'md5', 'sha512'] });
    let doc: MetadataDoc;
    try {
      doc = parseMetadata(await readFile(file.path, 'utf8'));
      checkMetadataMatchesPath(doc, p.dir);
    } catch (err) {
      await file.dispose();
      throw err;
    }
    const key = pathKey(repo.id, p.path);
    st.submissions.add(key, CHECKSUM_ALGORITHMS.map((a) => `${a}:${file.hashes[a]}`));
    // Read-merge-write under one lock per metadata path: concurrent deploys of different
    // versions each merge into the latest stored document, so none can drop another's version.
    return st.locks.run(key, async () => {
      let r;
      try {
        const current = ctx.assets.get(repo, p.path);
        let stored: MetadataDoc | undefined;
        if (current) {
          try {
            stored = parseMetadata((await readSmall(ctx.blobs, current)).toString('utf8'));
          } catch {
            stored = undefined; // an unreadable stored document is replaced, not merged
          }
        }
        const merged = mergeMetadata(doc, stored, isArtifactLevel(doc, p.dir) ? indexedVersions(ctx.assets, repo, p.dir, doc.artifactId!) : []);
        if (merged.changed) {
          await file.dispose();
          r = await ctx.assets.commitBytes({ repo, path: p.path, bytes: serializeMetadata(merged.doc), contentType: contentTypeOf(p.path), uploader, onExisting: 'replace' });
        } else {
          r = await ctx.assets.commit({ repo, path: p.path, file, contentType: contentTypeOf(p.path), uploader, onExisting: 'replace' });
        }
      } finally {
        await file.dispose();
      }
      if (r.status !== 'identical') dropChecksums(repo, p.path);
      return answer(c, r);
    });
  }

  return async (c: Context<TroveEnv>) => {
    const { repo, path, trailingSlash, uploader } = ctx.open(c, 'write');
    if (!path || trailingSlash) throw badRequest('a file path is required after the repository name');
    const p = parseMavenPath(path);
    checkVersionPolicy(repo, p);
    if (p.kind === 'checksum') return putChecksum(c, repo, p, uploader);
    if (p.kind === 'metadata' && p.xml) return putMetadata(c, repo, p, uploader);
    return putFile(c, repo, p, uploader);
  };
}

import { badRequest } from '@trove/core';

/** Checksum side files Maven and Gradle upload and request, with the length of their hex digest. */
export const CHECKSUM_LENGTHS = { md5: 32, sha1: 40, sha256: 64, sha512: 128 } as const;
export type ChecksumAlgorithm = keyof typeof CHECKSUM_LENGTHS;
export const CHECKSUM_ALGORITHMS = Object.keys(CHECKSUM_LENGTHS) as ChecksumAlgorithm[];

export const METADATA = 'maven-metadata.xml';
const SNAPSHOT = '-SNAPSHOT';
/** `1.0-20250101.120000-3`: the timestamped form Maven gives each SNAPSHOT build. */
const TIMESTAMPED = /^(\d{8}\.\d{6})-(\d+)/;
/** What a groupId part, artifactId, version or file name may contain (Maven's own coordinates are narrower). */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.+~-]*$/;

/** A file of an artifact version: `group/.../artifactId/version/artifactId-version[-classifier].ext`. */
export interface ArtifactFile {
  kind: 'artifact';
  path: string;
  dir: string;
  groupPath: string;
  artifactId: string;
  version: string;
  /** What follows `artifactId-version`: `.jar`, `-sources.jar`, `.pom.asc`, `.module`. */
  suffix: string;
  /** The file of a SNAPSHOT version asked for by its `-SNAPSHOT` name rather than a build's timestamp. */
  snapshotAlias: boolean;
}

/** `maven-metadata.xml` (or a side file of it such as `.asc`) at group, artifact or version level. */
export interface MetadataFile {
  kind: 'metadata';
  path: string;
  dir: string;
  /** True for the XML itself, false for side files like `maven-metadata.xml.asc`. */
  xml: boolean;
}

export interface ChecksumFile {
  kind: 'checksum';
  path: string;
  algorithm: ChecksumAlgorithm;
  target: ArtifactFile | MetadataFile;
}

export type MavenPath = ArtifactFile | MetadataFile | ChecksumFile;

export const isSnapshotVersion = (v: string) => v.endsWith(SNAPSHOT);

export function checksumSuffix(name: string): ChecksumAlgorithm | null {
  const dot = name.lastIndexOf('.');
  const ext = dot < 0 ? '' : name.slice(dot + 1);
  return ext in CHECKSUM_LENGTHS ? (ext as ChecksumAlgorithm) : null;
}

/** Checks each segment's characters; the traversal rules ran before in core's parseRepoPath. */
export function checkSegments(path: string): string[] {
  const segments = path.split('/');
  for (const s of segments) {
    if (!SEGMENT.test(s)) throw badRequest(`invalid Maven path segment "${s}": letters, digits and _ . + ~ - only, not starting with a dot or dash`);
  }
  return segments;
}

/**
 * Classifies a path inside a Maven repository, or throws 400 for anything that is not
 * the Maven 2 layout. Gradle's `.module` files and plugin markers
 * (`id/id.gradle.plugin/1.0/id.gradle.plugin-1.0.pom`) are ordinary artifact files here.
 */
export function parseMavenPath(path: string): MavenPath {
  const segments = checkSegments(path);
  const name = segments[segments.length - 1]!;
  const algorithm = checksumSuffix(name);
  if (algorithm) {
    const targetPath = path.slice(0, -(algorithm.length + 1));
    if (checksumSuffix(targetPath.slice(targetPath.lastIndexOf('/') + 1))) throw badRequest('a checksum of a checksum is not part of the Maven layout');
    const target = parseMavenPath(targetPath);
    if (target.kind === 'checksum') throw badRequest('a checksum of a checksum is not part of the Maven layout');
    return { kind: 'checksum', path, algorithm, target };
  }
  const dir = segments.slice(0, -1).join('/');
  if (name === METADATA || name.startsWith(METADATA + '.')) {
    if (segments.length < 2) throw badRequest('maven-metadata.xml belongs in a group, artifact or version directory');
    return { kind: 'metadata', path, dir, xml: name === METADATA };
  }
  if (segments.length < 4) {
    throw badRequest(`${path} is not a Maven layout path: expected group/.../artifactId/version/artifactId-version[-classifier].ext`);
  }
  const version = segments[segments.length - 2]!;
  const artifactId = segments[segments.length - 3]!;
  const groupPath = segments.slice(0, -3).join('/');
  const fail = () =>
    badRequest(`${name} does not belong in ${artifactId}/${version}/: Maven file names start with "${artifactId}-${version}" (or a SNAPSHOT build's timestamp)`);
  if (!name.startsWith(artifactId + '-')) throw fail();
  const rest = name.slice(artifactId.length + 1);
  let suffix: string;
  let snapshotAlias = false;
  if (rest.startsWith(version)) {
    suffix = rest.slice(version.length);
    snapshotAlias = isSnapshotVersion(version);
  } else if (isSnapshotVersion(version) && rest.startsWith(version.slice(0, -SNAPSHOT.length) + '-')) {
    const stamp = TIMESTAMPED.exec(rest.slice(version.length - SNAPSHOT.length + 1));
    if (!stamp) throw fail();
    suffix = rest.slice(version.length - SNAPSHOT.length + 1 + stamp[0].length);
  } else {
    throw fail();
  }
  // `.ext` or `-classifier.ext`; the extension may itself have dots (`.tar.gz`, `.pom.asc`).
  if (!/^(-[A-Za-z0-9_+~-]+)?\.[A-Za-z0-9_.+~-]+$/.test(suffix)) throw fail();
  return { kind: 'artifact', path, dir, groupPath, artifactId, version, suffix, snapshotAlias };
}

/** SPEC "Maven mutability": `maven-metadata.xml*` and anything under a `-SNAPSHOT` directory. */
export function isMutable(p: MavenPath): boolean {
  if (p.kind === 'checksum') return isMutable(p.target);
  if (p.kind === 'metadata') return true;
  return isSnapshotVersion(p.version);
}

/** The version directory a path lives in, when it lives in one. */
export function versionOf(p: MavenPath): string | null {
  if (p.kind === 'checksum') return versionOf(p.target);
  if (p.kind === 'artifact') return p.version;
  const last = p.dir.slice(p.dir.lastIndexOf('/') + 1);
  return isSnapshotVersion(last) ? last : null;
}

/** `-sources.jar` → {classifier: 'sources', extension: 'jar'}. */
export function splitSuffix(suffix: string): { classifier: string; extension: string } {
  const dot = suffix.indexOf('.');
  return { classifier: suffix.startsWith('-') ? suffix.slice(1, dot) : '', extension: suffix.slice(dot + 1) };
}

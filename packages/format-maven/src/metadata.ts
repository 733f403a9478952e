import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { badRequest } from '@trove/core';
import { compareVersions } from './versions.js';
import { isSnapshotVersion } from './layout.js';
import { refuseHostileShape } from './xml-shape.js';

/** The parts of maven-metadata.xml Trove reads and merges; everything else is kept as parsed. */
export interface SnapshotVersion {
  classifier?: string;
  extension: string;
  value: string;
  updated?: string;
}
export interface Versioning {
  latest?: string;
  release?: string;
  versions?: { version: string[] };
  lastUpdated?: string;
  snapshot?: { timestamp?: string; buildNumber?: string; localCopy?: string };
  snapshotVersions?: { snapshotVersion: SnapshotVersion[] };
  [k: string]: unknown;
}
export interface Plugin {
  name?: string;
  prefix: string;
  artifactId: string;
}
export interface MetadataDoc {
  groupId?: string;
  artifactId?: string;
  version?: string;
  versioning?: Versioning;
  plugins?: { plugin: Plugin[] };
  [k: string]: unknown;
}
interface XmlRoot {
  metadata: MetadataDoc;
  [k: string]: unknown;
}

const ARRAYS = new Set(['metadata.versioning.versions.version', 'metadata.versioning.snapshotVersions.snapshotVersion', 'metadata.plugins.plugin']);
const XML_OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Versions are strings ("1.10" is not 1.1); never coerce values to numbers or booleans.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // No XXE and no entity expansion: DTDs are refused before parsing, and entities are never expanded.
  processEntities: false,
  htmlEntities: false,
  jPath: true,
  isArray: (_name: string, jpath: unknown) => ARRAYS.has(String(jpath)),
};
const parser = new XMLParser(XML_OPTIONS);
const builder = new XMLBuilder({ ...XML_OPTIONS, format: true, indentBy: '  ', suppressEmptyNode: true });

/** Bigger than any real metadata file (thousands of versions fit in a few hundred KiB). */
export const MAX_METADATA_BYTES = 16 * 1024 * 1024;

/**
 * Parses maven-metadata.xml. Refuses DTDs and entity declarations outright (XXE, billion
 * laughs): Maven never writes them, so a document that has one is not ours to interpret.
 */
export function parseMetadata(xml: string): MetadataDoc {
  const text = xml.replace(/^\uFEFF/, '');
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw badRequest('maven-metadata.xml must not contain a DTD or entity declarations');
  // Maven and Gradle never write CDATA. Read as text, its `<` and `&` became markup when a merge wrote
  // the document back; kept apart, it is an object where Trove reads a version: refused like a DTD.
  if (text.includes('<![CDATA[')) throw badRequest('maven-metadata.xml must not contain CDATA sections (Maven never writes them)');
  refuseHostileShape(text);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw badRequest(`maven-metadata.xml is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  let root: XmlRoot;
  try {
    root = parser.parse(text) as XmlRoot;
  } catch (err) {
    throw badRequest(`maven-metadata.xml could not be read: ${(err as Error).message}`);
  }
  const doc = root.metadata;
  if (!doc || typeof doc !== 'object') throw badRequest('maven-metadata.xml must have a <metadata> root element');
  for (const k of ['groupId', 'artifactId', 'version'] as const) {
    if (doc[k] !== undefined && typeof doc[k] !== 'string') throw badRequest(`maven-metadata.xml: <${k}> must be text`);
  }
  const v = doc.versioning;
  if (v !== undefined && (typeof v !== 'object' || v === null)) throw badRequest('maven-metadata.xml: <versioning> must be an element');
  if (v && typeof v.versions === 'string') v.versions = { version: [] };
  if (v && typeof v.snapshotVersions === 'string') v.snapshotVersions = { snapshotVersion: [] };
  if (typeof doc.plugins === 'string') doc.plugins = { plugin: [] };
  if (v?.versions?.version?.some((x) => typeof x !== 'string')) throw badRequest('maven-metadata.xml: <version> entries must be text');
  return doc;
}

/**
 * Writes a document back as XML, and reads the result again before anyone stores it: a merge must
 * never turn an accepted upload into a stored document that no reader (this one included) can parse.
 */
export function serializeMetadata(doc: MetadataDoc): string {
  const xml = '<?xml version="1.0" encoding="UTF-8"?>\n' + builder.build({ metadata: doc });
  try {
    parseMetadata(xml);
  } catch (err) {
    throw badRequest(`maven-metadata.xml cannot be merged with what the server holds: ${(err as Error).message}`);
  }
  return xml;
}

/**
 * Checks that the document describes the directory it is uploaded to, so a mis-pointed
 * deploy cannot put another artifact's versions into this one's metadata.
 * `dir` is `group/.../artifactId[/version]` or a group directory.
 */
export function checkMetadataMatchesPath(doc: MetadataDoc, dir: string): void {
  const parts = dir.split('/');
  let groupParts = parts;
  if (isVersionLevel(doc, dir)) {
    if (doc.artifactId !== undefined && parts[parts.length - 2] !== doc.artifactId) throw badRequest(`maven-metadata.xml describes artifact ${doc.artifactId}, but it was uploaded to ${dir}/`);
    groupParts = parts.slice(0, -2);
  } else if (doc.artifactId !== undefined) {
    // Maven 2 also wrote the last deployed <version> into artifact-level metadata: not a version-level document.
    if (parts[parts.length - 1] !== doc.artifactId) throw badRequest(`maven-metadata.xml describes artifact ${doc.artifactId}, but it was uploaded to ${dir}/`);
    groupParts = parts.slice(0, -1);
  }
  if (doc.groupId !== undefined && doc.groupId !== groupParts.join('.')) {
    throw badRequest(`maven-metadata.xml describes group ${doc.groupId}, but it was uploaded under ${groupParts.join('/')}/`);
  }
}

/** Version-level metadata (a SNAPSHOT's builds) sits in the directory of the version it names. */
export function isVersionLevel(doc: MetadataDoc, dir: string): boolean {
  return doc.version !== undefined && dir.slice(dir.lastIndexOf('/') + 1) === doc.version;
}

/** Artifact-level metadata lists the versions of the artifact whose directory it sits in. */
export function isArtifactLevel(doc: MetadataDoc, dir: string): boolean {
  return doc.artifactId !== undefined && !isVersionLevel(doc, dir);
}

/** Maven's `lastUpdated` form, `yyyyMMddHHmmss` in UTC. */
export function timestampNow(now = new Date()): string {
  return now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

const maxString = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : a >= b ? a : b);
const snapshotKey = (s: SnapshotVersion) => `${s.classifier ?? ''}:${s.extension}`;
const snapshotOrder = (s?: Versioning['snapshot']) => `${s?.timestamp ?? ''}#${(s?.buildNumber ?? '').padStart(12, '0')}`;

export interface MergeResult {
  doc: MetadataDoc;
  /** False when the client's document already said everything: it is stored byte for byte. */
  changed: boolean;
}

/**
 * Merges an uploaded document with what the server already knows: the stored document
 * and the versions that have files in the asset index. Deploys of different versions
 * that ran concurrently each read an older document; taking the union here means no
 * deploy can drop another's version (workload W6). `latest` and `release` are then the
 * highest versions in Maven's order, as Nexus computes them, not whatever the last
 * client happened to deploy. `indexVersions` is empty for group- and version-level documents.
 */
export function mergeMetadata(client: MetadataDoc, stored: MetadataDoc | undefined, indexVersions: string[]): MergeResult {
  const doc: MetadataDoc = structuredClone(client);
  let changed = false;
  const cv = client.versioning;

  // Artifact level: versions, latest, release.
  const known = new Set<string>(cv?.versions?.version ?? []);
  const extra = [...(stored?.versioning?.versions?.version ?? []), ...indexVersions].filter(
    (v) => !known.has(v),
  );
  const all = [...new Set([...known, ...extra])];
  if (all.length) {
    const sorted = [...all].sort(compareVersions);
    const latest = sorted[sorted.length - 1];
    const release = sorted.filter((v) => !isSnapshotVersion(v)).pop();
    if (extra.length || (cv?.latest !== undefined && cv.latest !== latest) || (cv?.release !== undefined && cv.release !== release) || (release && cv?.release === undefined)) {
      changed = true;
      const versioning = (doc.versioning ??= {});
      versioning.versions = { version: sorted };
      versioning.latest = latest;
      if (release) versioning.release = release;
    }
  }

  // Version level (SNAPSHOT builds): newest build per classifier and extension.
  const sv = stored?.versioning;
  if (sv?.snapshotVersions?.snapshotVersion?.length || sv?.snapshot) {
    const byKey = new Map<string, SnapshotVersion>();
    for (const s of cv?.snapshotVersions?.snapshotVersion ?? []) byKey.set(snapshotKey(s), s);
    for (const s of sv.snapshotVersions?.snapshotVersion ?? []) {
      const mine = byKey.get(snapshotKey(s));
      if (!mine || (s.updated ?? '') > (mine.updated ?? '')) {
        byKey.set(snapshotKey(s), s);
        changed = true;
      }
    }
    if (changed && byKey.size) (doc.versioning ??= {}).snapshotVersions = { snapshotVersion: [...byKey.values()] };
    if (sv.snapshot && snapshotOrder(sv.snapshot) > snapshotOrder(cv?.snapshot)) {
      (doc.versioning ??= {}).snapshot = sv.snapshot;
      changed = true;
    }
  }

  // Group level (Maven plugin prefixes).
  const storedPlugins = stored?.plugins?.plugin ?? [];
  if (storedPlugins.length) {
    const prefixes = new Set((client.plugins?.plugin ?? []).map((p) => p.prefix));
    const missing = storedPlugins.filter((p) => !prefixes.has(p.prefix));
    if (missing.length) {
      doc.plugins = { plugin: [...(client.plugins?.plugin ?? []), ...missing] };
      changed = true;
    }
  }

  if (changed && doc.versioning) doc.versioning.lastUpdated = maxString(maxString(cv?.lastUpdated, sv?.lastUpdated), timestampNow());
  return { doc, changed };
}

/** The build a `-SNAPSHOT` file name stands for: `1.0-20250101.120000-3`, from version-level metadata. */
export function snapshotBuildFor(doc: MetadataDoc, classifier: string, extension: string): string | null {
  const v = doc.versioning;
  const match = v?.snapshotVersions?.snapshotVersion?.find((s) => (s.classifier ?? '') === classifier && s.extension === extension);
  if (match) return match.value;
  if (v?.snapshot?.timestamp && v.snapshot.buildNumber && doc.version) {
    return `${doc.version.slice(0, -'-SNAPSHOT'.length)}-${v.snapshot.timestamp}-${v.snapshot.buildNumber}`;
  }
  return null;
}

import type { ImportInput, RepoRow } from '@trove/core';
import { badRequest, conflict } from '@trove/core';
import type { SpooledFile } from '@trove/blobstore';
import { ArchiveError } from './deb/ar.js';
import { readControlFile } from './deb/control.js';
import { ControlSyntaxError, fieldValue, formatParagraph, parseParagraph, type Field } from './deb822.js';
import { isArchitecture, isDebianVersion, isPackageName, poolPath } from './names.js';
import { holdPoolFile, type DebianState } from './state.js';

/** Fields the index writes itself; a .deb that carries them must not override the real values. */
const INDEX_FIELDS = new Set(['filename', 'size', 'md5sum', 'sha1', 'sha256', 'sha512', 'msdos-filename']);

export interface UploadAnswer {
  package: string;
  version: string;
  architecture: string;
  filename: string;
  sha256: string;
}

export interface DebControl {
  package: string;
  version: string;
  architecture: string;
  source: string;
  /** The paragraph without index-only fields, no trailing newline. */
  control: string;
}

/** Validates a control paragraph: Package, Version (Debian syntax) and Architecture; the Source name picks the pool directory. */
export function checkControl(text: string): DebControl {
  let fields: Field[];
  try {
    fields = parseParagraph(text);
  } catch (err) {
    if (err instanceof ControlSyntaxError) throw badRequest(`invalid control file: ${err.message}`);
    throw err;
  }
  const pkg = fieldValue(fields, 'Package');
  const version = fieldValue(fields, 'Version');
  const arch = fieldValue(fields, 'Architecture');
  if (!pkg || !isPackageName(pkg)) throw badRequest(`invalid or missing Package field${pkg ? ` "${pkg.slice(0, 80)}"` : ''}`);
  if (!version || !isDebianVersion(version)) throw badRequest(`invalid or missing Version field${version ? ` "${version.slice(0, 80)}"` : ''}`);
  if (!arch || !isArchitecture(arch)) throw badRequest(`invalid or missing Architecture field${arch ? ` "${arch.slice(0, 80)}"` : ''}`);
  // `Source: name` or `Source: name (version)` when the source version differs.
  const sourceField = fieldValue(fields, 'Source');
  const source = sourceField ? sourceField.split(/\s+/)[0]! : pkg;
  if (!isPackageName(source)) throw badRequest(`invalid Source field "${sourceField!.slice(0, 80)}"`);
  const kept = fields.filter((f) => !INDEX_FIELDS.has(f.name.toLowerCase()));
  return { package: pkg, version, architecture: arch, source, control: formatParagraph(kept).replace(/\n+$/, '') };
}

/**
 * Stores one spooled .deb in (dist, component): reads its control file, applies the
 * identity rule (same package, version and architecture must be the same bytes), puts
 * the file in the pool and queues the affected index units. Disposes `file` in every case.
 * 201 when the package or its place in the distribution is new, 200 when nothing changed.
 */
export async function ingestDeb(
  state: DebianState,
  repo: RepoRow,
  dist: string,
  component: string,
  file: SpooledFile,
  uploader: string,
  /**
   * An import by the mirror, which fills a repository its source has locked (see `CommitInput.importing`),
   * and records it when the package is named (`ImportInput.onImported`).
   */
  importing?: Pick<ImportInput, 'onImported'>,
): Promise<{ status: 200 | 201; answer: UploadAnswer }> {
  const { ctx, store } = state;
  let committed = false;
  let release: (() => void) | undefined;
  try {
    let text: string;
    try {
      text = await readControlFile(file.path, file.size);
    } catch (err) {
      if (err instanceof ArchiveError) throw badRequest(`not a valid .deb: ${err.message}`);
      throw err;
    }
    const meta = checkControl(text);
    const who = `${meta.package} ${meta.version} (${meta.architecture})`;
    const existing = store.packageByIdentity(repo.id, meta.package, meta.version, meta.architecture);
    if (existing && existing.sha256 !== file.hashes.sha256) throw conflict(`${who} already exists in ${repo.name} with different content`, 'release_immutable');
    const filename = existing?.filename ?? poolPath(component, meta.source, meta.package, meta.version, meta.architecture);
    release = holdPoolFile(state, repo.id, filename); // a queued removal of the file waits until it is named
    if (!existing) {
      committed = true; // commit() disposes the spool file
      await ctx.assets.commit({
        repo,
        path: filename,
        file,
        contentType: 'application/vnd.debian.binary-package',
        uploader,
        onExisting: 'conflict',
        conflictMessage: `${filename} already exists in ${repo.name} with different content`,
        conflictCode: 'release_immutable',
        importing: importing !== undefined,
      });
    }
    const r = store.addPackage(repo.id, dist, component, {
      package: meta.package,
      version: meta.version,
      architecture: meta.architecture,
      filename,
      size: file.size,
      md5: file.hashes.md5!,
      sha256: file.hashes.sha256,
      control: meta.control,
    }, importing?.onImported);
    if (!existing && r.stored.filename !== filename) {
      // Another upload of this identity named its own pool path first (another component, at the same
      // moment): the file committed here is named by nothing, and goes with the next rebuild.
      state.poolRemovals.push({ repoId: repo.id, path: filename });
      state.rebuilder.notify();
    }
    if (r.stored.sha256 !== file.hashes.sha256) throw conflict(`${who} already exists in ${repo.name} with different content`, 'release_immutable');
    if (r.createdEntry) state.rebuilder.notify();
    return {
      status: r.createdPackage || r.createdEntry ? 201 : 200,
      answer: { package: meta.package, version: meta.version, architecture: meta.architecture, filename: r.stored.filename, sha256: file.hashes.sha256 },
    };
  } finally {
    release?.();
    if (!committed) await file.dispose();
  }
}

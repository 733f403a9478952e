import type { SpooledFile } from '@trove/blobstore';
import type { CoreContext } from '../context.js';
import type { RepoRow } from '../db/schema.js';

/** A file an internal writer (the mirror) brings in: complete, fsynced and already verified by the caller. */
export interface ImportInput {
  repo: RepoRow;
  /** The file's path at its source, without a leading slash. */
  path: string;
  file: SpooledFile;
  contentType: string;
  /** The uploader's name at the source (never an address). */
  uploader: string;
}

export type ImportResult =
  | { status: 'created' | 'identical' | 'replaced'; /** Where the file landed in the repository. */ path: string }
  | { status: 'skipped'; reason: string };

/**
 * Imports one file through its format's `importAsset` hook, or, for formats without one, the
 * same `assets.commit` uploads use (a changed file replaces the old one: the source is the truth
 * while it is mirrored). The file is disposed in every case.
 */
export async function importAsset(ctx: CoreContext, input: ImportInput): Promise<ImportResult> {
  const hook = ctx.formats.get(input.repo.format)?.importAsset;
  if (hook) return hook(input, ctx);
  const { status, asset } = await ctx.assets.commit({ ...input, onExisting: 'replace' });
  return { status, path: asset.path };
}

/** Removes a file an import brought in, through the format's hook when it has one. */
export async function removeImported(ctx: CoreContext, input: { repo: RepoRow; path: string }): Promise<boolean> {
  const hook = ctx.formats.get(input.repo.format)?.removeImported;
  if (hook) return hook(input, ctx);
  return ctx.assets.delete(input.repo, input.path);
}

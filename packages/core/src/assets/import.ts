import type { CoreContext } from '../context.js';
import type { AssetRow, RepoRow } from '../db/schema.js';
import type { ImportInput, ImportResult } from '../modules/format.js';

export type { ImportInput, ImportResult };

/**
 * Imports one file through its format's `importAsset` hook, or, for formats without one, the
 * same `assets.commit` uploads use (a changed file replaces the old one: the source is the truth
 * while it is mirrored). The file is disposed in every case.
 */
export async function importAsset(ctx: CoreContext, input: ImportInput): Promise<ImportResult> {
  const format = ctx.formats.instance(input.repo.format);
  if (format?.importAsset) return format.importAsset(input);
  const { status, asset } = await ctx.assets.commit({ ...importCommitInput(input), onExisting: 'replace', importing: true });
  return { status, path: asset.path };
}

/** What `assets.commit` takes for an import: `onImported` runs in the commit, with the asset's path. */
export function importCommitInput({ onImported, ...input }: ImportInput): Omit<ImportInput, 'onImported'> & { inCommit?: (asset: AssetRow) => void } {
  return onImported ? { ...input, inCommit: (asset) => onImported(asset.path) } : input;
}

/** Removes a file an import brought in, through the format's hook when it has one. */
export async function removeImported(ctx: CoreContext, input: { repo: RepoRow; path: string }): Promise<boolean> {
  const format = ctx.formats.instance(input.repo.format);
  if (format?.removeImported) return format.removeImported(input);
  return ctx.assets.delete(input.repo, input.path);
}

import { isTroveError, type FormatContext, type ImportInput, type ImportResult } from '@trove/core';
import { parseMavenPath } from './layout.js';

/**
 * Imports from another repository manager (the mirror). A file of the Maven 2 layout lands as it
 * is, metadata and checksum side files included: while a repository is mirrored, the source is
 * the truth. Anything Trove would never serve (Nexus's `.index/` and `.meta/` files, names Maven's
 * layout does not allow) is skipped with its reason rather than stored where no GET can reach it.
 */
export async function importMavenFile(ctx: FormatContext, input: ImportInput): Promise<ImportResult> {
  try {
    parseMavenPath(input.path);
  } catch (err) {
    if (!isTroveError(err)) throw err;
    await input.file.dispose();
    return { status: 'skipped', reason: `not part of the Maven layout Trove serves (${err.message})` };
  }
  const { status, asset } = await ctx.assets.commit({ ...input, onExisting: 'replace', importing: true });
  return { status, path: asset.path };
}

import { importCommitInput, isTroveError, type FormatContext, type ImportInput, type ImportResult } from '@trove/core';
import { checkSegments } from './layout.js';

/**
 * Imports from another repository manager (the mirror). A file lands as it is, metadata and
 * checksum side files included: while a repository is mirrored, the source is the truth. Only
 * what a GET would refuse to serve (Nexus's `.index/` and `.meta/` files, names with characters
 * Maven paths may not hold) is skipped, with its reason, rather than stored where no GET reaches it.
 * Files outside the artifact layout that a GET serves (`archetype-catalog.xml`, a `KEYS` file) land.
 */
export async function importMavenFile(ctx: FormatContext, input: ImportInput): Promise<ImportResult> {
  try {
    checkSegments(input.path); // what a GET refuses before anything else
  } catch (err) {
    if (!isTroveError(err)) throw err;
    await input.file.dispose();
    return { status: 'skipped', reason: `not a path Trove serves in a Maven repository (${err.message})` };
  }
  const { status, asset } = await ctx.assets.commit({ ...importCommitInput(input), onExisting: 'replace', importing: true });
  return { status, path: asset.path };
}

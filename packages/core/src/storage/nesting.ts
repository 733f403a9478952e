import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { StorageConfig } from '@trove/blobstore';

/**
 * Why a new location cannot take over from the current one: one lies inside the other's own area,
 * its `sha256/` tree or a dot directory (`.tmp`, `.trove-move`): fs root `<old>/sha256`, or an S3
 * prefix `<old>/sha256` in the same bucket. A move there copies blobs into the tree being emptied,
 * and the old store's listing would include the new one's blobs. A location merely beside or under
 * the other's root (`<old>/v2`, or the bucket's top around `trove/`) shares nothing with it and is
 * allowed. Only what the settings spell out is compared: another name for the same endpoint, or a
 * bind mount, is not seen here; a move's cleanup deletes nothing but content keys, which the nested
 * store's blobs never are from the old store's view.
 */
export async function nestedProblem(from: StorageConfig, to: StorageConfig, dataDir: string): Promise<{ key: string; message: string } | undefined> {
  if (from.storage !== to.storage) return undefined;
  if (to.storage === 'fs') {
    const rootOf = (cfg: StorageConfig) => realLocation(cfg.fsRoot || join(dataDir, 'blobs'));
    const [a, b] = await Promise.all([rootOf(from), rootOf(to)]);
    if (inStoreArea(b, a, sep)) return { key: 'fs.root', message: `is inside the current blob directory's own tree (${a}): choose a directory apart from it` };
    if (inStoreArea(a, b, sep)) return { key: 'fs.root', message: `would hold the current blob directory (${a}) in its own tree: choose a directory apart from it` };
    return undefined;
  }
  if (endpointOf(from.s3.endpoint) !== endpointOf(to.s3.endpoint) || from.s3.bucket !== to.s3.bucket) return undefined;
  const [a, b] = [trimSlashes(from.s3.prefix), trimSlashes(to.s3.prefix)];
  if (inStoreArea(b, a, '/')) return { key: 's3.prefix', message: `is inside the current store's own keys (${a ? `${a}/` : ''}sha256/...) in this bucket: choose a prefix apart from them` };
  if (inStoreArea(a, b, '/')) return { key: 's3.prefix', message: `would hold the current store (${a}) among its own keys in this bucket: choose a prefix apart from it` };
  return undefined;
}

/** `inner` strictly below `outer` ('' is the top of a bucket), in the store's own area: `sha256/` or a dot directory. */
function inStoreArea(inner: string, outer: string, separator: string): boolean {
  if (inner === outer) return false;
  const base = outer === '' || outer.endsWith(separator) ? outer : outer + separator;
  if (!inner.startsWith(base)) return false;
  const first = inner.slice(base.length).split(separator)[0]!;
  return first === 'sha256' || first.startsWith('.');
}

const trimSlashes = (p: string) => p.replace(/^\/+|\/+$/g, '');

/** An endpoint as the URL parser spells it (case, default port, a trailing slash). */
function endpointOf(e: string): string {
  try {
    const u = new URL(e);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return e;
  }
}

/** The path with symlinks resolved, for a directory that may not exist yet: its nearest existing ancestor's. */
async function realLocation(p: string): Promise<string> {
  let dir = resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(await realpath(dir), ...rest.reverse());
    } catch {
      const up = dirname(dir);
      if (up === dir) return resolve(p);
      rest.push(basename(dir));
      dir = up;
    }
  }
}

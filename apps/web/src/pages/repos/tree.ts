import type { Asset } from '../../api/types';

export interface Folder {
  name: string;
  /** Full path with trailing slash. */
  path: string;
  folders: Map<string, Folder>;
  files: Asset[];
  size: number;
  count: number;
}

/** Builds the folder tree of the files under `prefix` (the API returns them flat, in path order). */
export function buildTree(items: Asset[], prefix: string): Folder {
  const root: Folder = { name: '', path: prefix, folders: new Map(), files: [], size: 0, count: 0 };
  for (const a of items) {
    const parts = a.path.slice(prefix.length).split('/');
    let node = root;
    node.size += a.size;
    node.count++;
    for (const part of parts.slice(0, -1)) {
      let child = node.folders.get(part);
      if (!child) {
        child = { name: part, path: `${node.path}${part}/`, folders: new Map(), files: [], size: 0, count: 0 };
        node.folders.set(part, child);
      }
      child.size += a.size;
      child.count++;
      node = child;
    }
    node.files.push(a);
  }
  return root;
}

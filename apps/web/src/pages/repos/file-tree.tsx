import { useState } from 'react';
import type { Asset } from '../../api/types';
import { formatSize, Time } from '../../components/format';
import { FileIcon, FolderIcon } from '../../components/icons';
import { link } from '../../router';
import { buildTree, type Folder } from './tree';

function FileRow({ repo, a, depth }: { repo: string; a: Asset; depth: number }) {
  const name = a.path.slice(a.path.lastIndexOf('/') + 1);
  return (
    <li className="node file" style={{ ['--depth' as string]: depth }}>
      <span className="name">
<FileIcon />
        <a href={link('repos', repo, { file: a.path })}>{name}</a>
      </span>
      <span className="size">{formatSize(a.size)}</span>
      <span className="uploader wide">{a.uploader || <span className="muted">—</span>}</span>
      <span className="date wide">
        <Time iso={a.updated_at} />
      </span>
    </li>
  );
}

function FolderRow({ repo, f, depth, open: initiallyOpen }: { repo: string; f: Folder; depth: number; open: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <li className="node folder" style={{ ['--depth' as string]: depth }}>
      <div className="row">
        <span className="name">
          <button type="button" className="disclosure" aria-expanded={open} onClick={() => setOpen(!open)} aria-label={`${open ? 'Collapse' : 'Expand'} ${f.name}`}>
            <span aria-hidden="true">{open ? '▾' : '▸'}</span>
          </button>
<FolderIcon />
          <a href={link('repos', repo, { prefix: f.path })} title={`Open ${f.path}`}>
            {f.name}/
          </a>
        </span>
        <span className="size">{formatSize(f.size)}</span>
        <span className="uploader wide muted">
          {f.count} {f.count === 1 ? 'file' : 'files'}
        </span>
        <span className="date wide" />
      </div>
      {open && <Nodes repo={repo} folder={f} depth={depth + 1} openAll={false} />}
    </li>
  );
}

function Nodes({ repo, folder, depth, openAll }: { repo: string; folder: Folder; depth: number; openAll: boolean }) {
  return (
    <ul className="tree-level">
      {[...folder.folders.values()].map((f) => (
        <FolderRow key={f.path} repo={repo} f={f} depth={depth} open={openAll} />
      ))}
      {folder.files.map((a) => (
        <FileRow key={a.path} repo={repo} a={a} depth={depth} />
      ))}
    </ul>
  );
}

/** Files under a prefix as a collapsible tree, with sizes (folders: the sum of their files), uploader and date. */
export function FileTree({ repo, prefix, items }: { repo: string; prefix: string; items: Asset[] }) {
  const root = buildTree(items, prefix);
  // Small trees open their first level: one click less to reach a file.
  const openAll = root.folders.size <= 3 && items.length <= 40;
  return (
    <div className="tree" role="region" aria-label={`Files in ${prefix || repo}`}>
      <div className="tree-head" aria-hidden="true">
        <span className="name">Name</span>
        <span className="size">Size</span>
        <span className="uploader wide">Uploaded by</span>
        <span className="date wide">Updated</span>
      </div>
      <Nodes repo={repo} folder={root} depth={0} openAll={openAll} />
    </div>
  );
}

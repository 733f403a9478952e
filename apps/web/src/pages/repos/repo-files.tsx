import type { Asset } from '../../api/types';
import { enc, url } from '../../api/client';
import { formatSize } from '../../components/format';
import { PagedList } from '../../components/paged-list';
import { link } from '../../router';
import { usePaged } from '../../use-paged';
import { FileTree } from './file-tree';

function Breadcrumb({ repo, prefix }: { repo: string; prefix: string }) {
  const parts = prefix.split('/').filter(Boolean);
  return (
    <nav aria-label="Folder" className="crumbs">
      <a href={link('repos', repo)}>{repo}</a>
      {parts.map((p, i) => (
        <span key={i}>
          <span aria-hidden="true"> / </span>
          {i === parts.length - 1 ? (
            <span aria-current="page">{p}</span>
          ) : (
            <a href={link('repos', repo, { prefix: parts.slice(0, i + 1).join('/') + '/' })}>{p}</a>
          )}
        </span>
      ))}
    </nav>
  );
}

/** The repository's files under `prefix`, paged 200 at a time into one tree. */
export function RepoFiles({ repo, prefix }: { repo: string; prefix: string }) {
  const list = usePaged<Asset>(url(`/api/repos/${enc(repo)}/assets`, { prefix }), 200);
  const total = list.items.reduce((n, a) => n + a.size, 0);
  return (
    <section aria-labelledby="files-h">
      <div className="section-head">
        <h2 id="files-h">Files</h2>
        {list.items.length > 0 && (
          <span className="muted">
            {list.items.length}
            {list.next ? '+' : ''} {list.items.length === 1 && !list.next ? 'file' : 'files'} · {formatSize(total)}
            {list.next ? '+' : ''}
          </span>
        )}
      </div>
      {prefix && <Breadcrumb repo={repo} prefix={prefix} />}
      <PagedList list={list} what="files" empty={prefix ? 'Nothing under this folder.' : 'This repository is empty. Files appear here once someone publishes.'}>
        {(items) => <FileTree repo={repo} prefix={prefix} items={items} />}
      </PagedList>
    </section>
  );
}

import { enc, get } from '../../api/client';
import type { Repo } from '../../api/types';
import { ErrorMessage, Loading } from '../../components/states';
import { link } from '../../router';
import { useMe } from '../../session';
import { useLoad } from '../../use-load';
import { FileDetails } from './file-details';
import { RepoFiles } from './repo-files';
import { RepoStatus } from './repo-status';
import { SearchBox } from './search';
import { UsageSnippets } from './usage-snippets';

export function RepoPage({ repo, query }: { repo: string; query: URLSearchParams }) {
  const me = useMe();
  const info = useLoad(`repo:${repo}`, () => get<Repo>(`/api/repos/${enc(repo)}`));
  const file = query.get('file');
  const prefix = query.get('prefix') ?? '';
  const q = query.get('q') ?? '';
  return (
    <section>
      <nav aria-label="Breadcrumb" className="crumbs">
        <a href="#/">Repositories</a> <span aria-hidden="true">/</span>
      </nav>
      <div className="page-head">
        <h1 tabIndex={-1}>{repo}</h1>
        {info.state === 'ok' && (
          <div className="badges">
            <span className="badge">{info.data.format}</span>
            {info.data.anonymous_read ? <span className="badge public">public</span> : <span className="badge">private</span>}
            {info.data.locked_by && <span className="badge warn">mirrored by {info.data.locked_by}</span>}
            {info.data.format === 'debian' && <RepoStatus repo={repo} />}
          </div>
        )}
        {me?.is_admin && (
          <a className="button" href={link('admin', 'repos', repo)}>
            Settings
          </a>
        )}
      </div>
      {info.state === 'loading' && <Loading what="the repository" />}
      {info.state === 'error' && <ErrorMessage error={info.error} onRetry={info.reload} />}
      {info.state === 'error' && !me && (
        <p>
          This repository may be private. <a href={link('login', { next: `/repos/${encodeURIComponent(repo)}` })}>Sign in</a> to see it.
        </p>
      )}
      {info.state === 'ok' && (
        <div className="repo-layout">
          <div className="main-col">
            <SearchBox repo={repo} q={q} />
            {file ? <FileDetails repo={info.data} path={file} /> : q.trim().length < 3 ? <RepoFiles repo={repo} prefix={prefix} /> : null}
          </div>
          <div className="side-col">
            <UsageSnippets repo={repo} />
          </div>
        </div>
      )}
    </section>
  );
}

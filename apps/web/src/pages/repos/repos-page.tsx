import { get, getAll } from '../../api/client';
import type { Repo } from '../../api/types';
import { Empty, ErrorMessage, Loading } from '../../components/states';
import { link } from '../../router';
import { useSession } from '../../session';
import { useLoad } from '../../use-load';
import { SearchBox } from './search';

const FORMAT_HINT: Record<string, string> = { maven: 'Maven & Gradle', debian: 'apt', raw: 'plain files' };

export function ReposPage({ query }: { query: URLSearchParams }) {
  const { session } = useSession();
  const me = session.state === 'user' ? session.me : null;
  const repos = useLoad(`repos:${session.state}`, () => getAll<Repo>('/api/repos'));
  const q = query.get('q') ?? '';
  return (
    <section>
      <div className="page-head">
        <h1 tabIndex={-1}>Repositories</h1>
        {me?.is_admin && (
          <a className="button primary" href={link('admin', 'repos', { new: '1' })}>
            New repository
          </a>
        )}
      </div>
      <SearchBox q={q} />
      {q.trim().length < 3 && (
        <>
          {repos.state === 'loading' && <Loading what="repositories" />}
          {repos.state === 'error' && <ErrorMessage error={repos.error} onRetry={repos.reload} />}
          {repos.state === 'ok' &&
            (repos.data.length === 0 ? (
              <Empty>
                {me?.is_admin ? (
                  <>
                    No repositories yet. <a href={link('admin', 'repos', { new: '1' })}>Create the first one</a>.
                  </>
                ) : me ? (
                  'No repositories you can read yet. Ask an admin for access.'
                ) : (
                  <>
                    No public repositories. <a href={link('login')}>Sign in</a> to see yours.
                  </>
                )}
              </Empty>
            ) : (
              <ul className="cards">
                {repos.data.map((r) => (
                  <li key={r.name}>
                    <a href={link('repos', r.name)}>
                      <strong>{r.name}</strong>
                      <span className="meta">
                        <span className="badge">{r.format}</span>
                        {r.anonymous_read && <span className="badge public">public</span>}
                        {r.locked_by && <span className="badge warn">mirrored</span>}
                      </span>
                      <small className="muted">{FORMAT_HINT[r.format] ?? r.format}</small>
                    </a>
                  </li>
                ))}
              </ul>
            ))}
        </>
      )}
    </section>
  );
}

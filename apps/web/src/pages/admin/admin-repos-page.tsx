import { getAll } from '../../api/client';
import type { Repo } from '../../api/types';
import { Empty, ErrorMessage, Loading } from '../../components/states';
import { Table } from '../../components/table';
import { link, navigate } from '../../router';
import { useLoad } from '../../use-load';
import { RepoForm } from './repo-form';

export function AdminReposPage({ creating }: { creating: boolean }) {
  const repos = useLoad('admin-repos', () => getAll<Repo>('/api/repos'));
  return (
    <section>
      <div className="page-head">
        <h1 tabIndex={-1}>Manage repositories</h1>
        {!creating && (
          <a className="button primary" href={link('admin', 'repos', { new: '1' })}>
            New repository
          </a>
        )}
      </div>
      {creating && (
        <section className="card" aria-labelledby="new-h">
          <h2 id="new-h">New repository</h2>
          <RepoForm onSaved={(r) => navigate(link('admin', 'repos', r.name, { created: '1' }))} onCancel={() => navigate(link('admin', 'repos'))} />
        </section>
      )}
      {repos.state === 'loading' && <Loading what="repositories" />}
      {repos.state === 'error' && <ErrorMessage error={repos.error} onRetry={repos.reload} />}
      {repos.state === 'ok' &&
        (repos.data.length === 0 ? (
          !creating && <Empty>No repositories yet.</Empty>
        ) : (
          <Table columns={['Name', 'Format', 'Anonymous read', 'Overwrite']} actions>
            {repos.data.map((r) => (
              <tr key={r.name}>
                <td>
                  <a href={link('repos', r.name)}>
                    <strong>{r.name}</strong>
                  </a>
                  {r.locked_by && <span className="badge warn">mirrored by {r.locked_by}</span>}
                </td>
                <td>{r.format}</td>
                <td>{r.anonymous_read ? 'yes' : 'no'}</td>
                <td>{r.format === 'raw' ? r.overwrite : '—'}</td>
                <td className="end">
                  <a className="button" href={link('admin', 'repos', r.name)} aria-label={`Edit ${r.name}`}>
                    Edit
                  </a>
                </td>
              </tr>
            ))}
          </Table>
        ))}
    </section>
  );
}

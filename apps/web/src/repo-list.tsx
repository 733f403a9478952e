import { api, type Repo } from './api';
import { useLoad } from './use-load';

export function RepoList() {
  const repos = useLoad('repos', () => api<Repo[]>('/api/repos'));
  if (repos.state === 'loading') return <p className="muted">Loading repositories…</p>;
  if (repos.state === 'error') return <p role="alert" className="error">{repos.error}</p>;
  if (!repos.data.length) return <p className="muted">No repositories you can see yet. An admin creates them with <code>POST /api/repos</code>.</p>;
  return (
    <ul className="cards">
      {repos.data.map((r) => (
        <li key={r.name}>
          <a href={`#/repos/${encodeURIComponent(r.name)}`}>
            <strong>{r.name}</strong>
            <span className="badge">{r.format}</span>
            {r.anonymous_read && <span className="badge">public</span>}
          </a>
        </li>
      ))}
    </ul>
  );
}

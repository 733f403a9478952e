import { useEffect, useState } from 'react';
import { api, type Asset, type Page, type Repo, type Usage } from './api';
import { useLoad } from './use-load';

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : n < 1073741824 ? `${(n / 1048576).toFixed(1)} MB` : `${(n / 1073741824).toFixed(2)} GB`);

/** Immediate children of `prefix`: folders derived from deeper paths, files directly in it. */
function children(items: Asset[], prefix: string) {
  const folders = new Set<string>();
  const files: Asset[] = [];
  for (const a of items) {
    const rest = a.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash >= 0) folders.add(rest.slice(0, slash));
    else files.push(a);
  }
  return { folders: [...folders], files };
}

function Snippets({ repo }: { repo: string }) {
  const usage = useLoad(`usage:${repo}`, () => api<Usage>(`/api/repos/${encodeURIComponent(repo)}/usage`));
  if (usage.state !== 'ok' || !usage.data.snippets.length) return null;
  return (
    <section aria-label="Usage">
      <h2>Use this repository</h2>
      {usage.data.snippets.map((s) => (
        <figure key={s.title} className="snippet">
          <figcaption>
            {s.title}
            <button type="button" aria-label={`Copy: ${s.title}`} onClick={() => navigator.clipboard?.writeText(s.code)}>
              Copy
            </button>
          </figcaption>
          <pre>
            <code>{s.code}</code>
          </pre>
        </figure>
      ))}
    </section>
  );
}

export function FileBrowser({ repo, prefix }: { repo: string; prefix: string }) {
  const info = useLoad(`repo:${repo}`, () => api<Repo>(`/api/repos/${encodeURIComponent(repo)}`));
  const [items, setItems] = useState<Asset[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(true);

  const load = (after: string) => {
    setBusy(true);
    const q = new URLSearchParams({ prefix, limit: '200', ...(after ? { after } : {}) });
    api<Page<Asset>>(`/api/repos/${encodeURIComponent(repo)}/assets?${q}`).then(
      (p) => {
        setItems((old) => (after ? [...old, ...p.items] : p.items));
        setNext(p.next || null);
        setBusy(false);
      },
      (e: Error) => {
        setError(e.message);
        setBusy(false);
      },
    );
  };
  useEffect(() => {
    setItems([]);
    setError('');
    load('');
  }, [repo, prefix]);

  const { folders, files } = children(items, prefix);
  const parts = prefix.split('/').filter(Boolean);
  const format = info.state === 'ok' ? info.data.format : 'raw';
  const link = (p: string) => `#/repos/${encodeURIComponent(repo)}/${p}`;
  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <a href="#/">Repositories</a> / <a href={link('')}>{repo}</a>
        {parts.map((p, i) => (
          <span key={i}>
            {' / '}
            <a href={link(parts.slice(0, i + 1).join('/') + '/')}>{p}</a>
          </span>
        ))}
      </nav>
      {error && <p role="alert" className="error">{error}</p>}
      {!error && !busy && !folders.length && !files.length && <p className="muted">This folder is empty.</p>}
      <table className="files">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Size</th>
            <th scope="col" className="wide">Uploaded by</th>
            <th scope="col" className="wide">Updated</th>
          </tr>
        </thead>
        <tbody>
          {folders.map((f) => (
            <tr key={`d:${f}`}>
              <td colSpan={4}>
                <a href={link(prefix + f + '/')}>📁 {f}/</a>
              </td>
            </tr>
          ))}
          {files.map((a) => (
            <tr key={a.path}>
              <td>
                <a href={`/${format}/${encodeURIComponent(repo)}/${a.path.split('/').map(encodeURIComponent).join('/')}`} title={`sha256 ${a.sha256}`}>
                  {a.path.slice(prefix.length)}
                </a>
              </td>
              <td>{size(a.size)}</td>
              <td className="wide">{a.uploader || '—'}</td>
              <td className="wide">{new Date(a.updated_at).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {busy && <p className="muted">Loading files…</p>}
      {next && !busy && (
        <button type="button" onClick={() => load(next)}>
          Load more
        </button>
      )}
      <Snippets repo={repo} />
    </>
  );
}

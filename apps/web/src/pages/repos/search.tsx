import { useEffect, useState } from 'react';
import { url } from '../../api/client';
import type { Asset } from '../../api/types';
import { formatSize, Time } from '../../components/format';
import { PagedList } from '../../components/paged-list';
import { link, navigate } from '../../router';
import { usePaged } from '../../use-paged';

/** Substring search on paths (`/api/search`, at least 3 characters), in one repository or all readable ones. */
export function SearchBox({ repo, q }: { repo?: string; q: string }) {
  const [text, setText] = useState(q);
  useEffect(() => {
    setText(q);
  }, [q]);
  const go = (value: string) => navigate(repo ? link('repos', repo, { q: value }) : link('repos', { q: value }));
  const active = q.trim().length >= 3;
  return (
    <>
      <form
        role="search"
        className="search"
        onSubmit={(e) => {
          e.preventDefault();
          go(text.trim());
        }}
      >
        <label htmlFor="search-q" className="sr-only">
          {repo ? `Search files in ${repo}` : 'Search files in all repositories'}
        </label>
        <input
          id="search-q"
          type="search"
          placeholder={repo ? `Search files in ${repo}…` : 'Search files in all repositories…'}
          value={text}
          minLength={3}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit">Search</button>
        {q && (
          <button type="button" className="link" onClick={() => (setText(''), go(''))}>
            Clear
          </button>
        )}
      </form>
      {q && !active && <p className="hint">Type at least 3 characters.</p>}
      {active && <SearchResults repo={repo} q={q.trim()} />}
    </>
  );
}

function SearchResults({ repo, q }: { repo?: string; q: string }) {
  const list = usePaged<Asset>(url('/api/search', { q, repo }));
  return (
    <section aria-labelledby="results-h">
      <h2 id="results-h">
        Results for “{q}”{repo ? ` in ${repo}` : ''}
      </h2>
      <PagedList list={list} what="results" empty={<>No file path contains “{q}”.</>}>
        {(items) => (
          <ul className="results">
            {items.map((a) => (
              <li key={`${a.repo}:${a.path}`}>
                <a href={link('repos', a.repo ?? repo ?? '', { file: a.path })}>{a.path}</a>
                <span className="muted">
                  {!repo && a.repo && <span className="badge">{a.repo}</span>} {formatSize(a.size)} · {a.uploader || '—'} · <Time iso={a.updated_at} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </PagedList>
    </section>
  );
}

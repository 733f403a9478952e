import { useState } from 'react';
import { enc, get, post, getAll } from '../../api/client';
import type { CreatedSession, FreshProof, Repo, Usage } from '../../api/types';
import { FreshProofForm } from '../../components/fresh-proof';
import { ErrorMessage, Loading, Notice } from '../../components/states';
import { useLoad } from '../../use-load';

export interface StartedSession {
  session: CreatedSession;
  format: string;
  /** The server's `base_url` (or this origin), for the commands. */
  base: string;
}

/** Starts a publish session by hand with a fresh TOTP code or passkey; the page shows the token once. */
export function ManualSession({ onStarted }: { onStarted(s: StartedSession): void }) {
  const repos = useLoad('repos', () => getAll<Repo>('/api/repos'));
  const [repo, setRepo] = useState('');
  // A mirrored repository (`locked_by` set) refuses writes with 409 until cut-over: listed, but not selectable.
  // The list does not say which repositories the user may write to; the server checks that when the session starts.
  const all = repos.state === 'ok' ? repos.data : [];
  const writable = all.filter((r) => !r.locked_by);
  const chosen = writable.some((r) => r.name === repo) ? repo : (writable[0]?.name ?? '');

  const start = async (proof: FreshProof) => {
    const name = chosen;
    const session = await post<CreatedSession>('/api/publish/sessions/manual', { repo: name, ...proof });
    const r = all.find((x) => x.name === name);
    const usage = await get<Usage>(`/api/repos/${enc(name)}/usage`).catch(() => null);
    onStarted({ session, format: r?.format ?? 'raw', base: usage?.base_url ?? location.origin });
  };

  return (
    <section className="card" aria-labelledby="manual-h">
      <h2 id="manual-h">Start a publish session</h2>
      <p className="muted">For a one-off upload from a terminal. You need write permission on the repository.</p>
      {repos.state === 'loading' && <Loading what="repositories" />}
      {repos.state === 'error' && <ErrorMessage error={repos.error} onRetry={repos.reload} />}
      {repos.state === 'ok' &&
        (writable.length === 0 ? (
          <Notice>
            {all.length === 0
              ? 'There is no repository you can see yet. An admin gives you write permission on one to publish there.'
              : 'Every repository you can see mirrors another server and refuses uploads until its cut-over.'}
          </Notice>
        ) : (
          <>
            <div className="field">
              <label htmlFor="session-repo">Repository</label>
              <select id="session-repo" value={chosen} onChange={(e) => setRepo(e.target.value)}>
                {all.map((r) => (
                  <option key={r.name} value={r.name} disabled={!!r.locked_by}>
                    {r.name} ({r.format}){r.locked_by ? `: mirrors ${r.locked_by}, no uploads until cut-over` : ''}
                  </option>
                ))}
              </select>
            </div>
            <FreshProofForm action="Start session" onProof={start} />
          </>
        ))}
    </section>
  );
}

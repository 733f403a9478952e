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

  const start = async (proof: FreshProof) => {
    const name = repo || (repos.state === 'ok' ? repos.data[0]?.name : '') || '';
    const session = await post<CreatedSession>('/api/publish/sessions/manual', { repo: name, ...proof });
    const r = repos.state === 'ok' ? repos.data.find((x) => x.name === name) : undefined;
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
        (repos.data.length === 0 ? (
          <Notice>There is no repository you can see yet. An admin gives you write permission on one to publish there.</Notice>
        ) : (
          <>
            <div className="field">
              <label htmlFor="session-repo">Repository</label>
              <select id="session-repo" value={repo || repos.data[0]!.name} onChange={(e) => setRepo(e.target.value)}>
                {repos.data.map((r) => (
                  <option key={r.name} value={r.name}>
                    {r.name} ({r.format})
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

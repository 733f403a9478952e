import { useState } from 'react';
import { ApiError, del, enc, get, post } from '../../api/client';
import type { CreatedSession, FreshProof, Repo, Usage } from '../../api/types';
import { CodeBlock } from '../../components/code-block';
import { Time } from '../../components/format';
import { FreshProofForm } from '../../components/fresh-proof';
import { SecretOnce } from '../../components/secret-once';
import { ErrorMessage, Loading, Notice } from '../../components/states';
import { useLoad } from '../../use-load';
import { sessionCommands } from './session-commands';

/** A publish session started by hand (fresh TOTP or passkey), shown once with commands ready to paste. */
export function ManualSession({ onCreated }: { onCreated(): void }) {
  const repos = useLoad('repos', () => get<Repo[]>('/api/repos'));
  const [repo, setRepo] = useState('');
  const [created, setCreated] = useState<{ session: CreatedSession; format: string; base: string } | null>(null);
  const [ended, setEnded] = useState('');

  const start = async (proof: FreshProof) => {
    const name = repo || (repos.state === 'ok' ? repos.data[0]?.name : '') || '';
    const session = await post<CreatedSession>('/api/publish/sessions/manual', { repo: name, ...proof });
    const r = repos.state === 'ok' ? repos.data.find((x) => x.name === name) : undefined;
    const usage = await get<Usage>(`/api/repos/${enc(name)}/usage`).catch(() => null);
    setCreated({ session, format: r?.format ?? 'raw', base: usage?.base_url ?? location.origin });
    setEnded('');
    onCreated();
  };

  const end = async () => {
    if (!created) return;
    try {
      await del(`/api/publish/sessions/${enc(created.session.id)}`, { Authorization: `Bearer ${created.session.token}` });
      setEnded('The session is closed; its token opens nothing any more.');
      setCreated(null);
      onCreated();
    } catch (e) {
      setEnded(e instanceof ApiError ? e.message : String(e));
    }
  };

  return (
    <section className="card" aria-labelledby="manual-h">
      <h2 id="manual-h">Start a publish session</h2>
      <p className="muted">For a one-off upload from a terminal. You need write permission on the repository.</p>
      {repos.state === 'loading' && <Loading what="repositories" />}
      {repos.state === 'error' && <ErrorMessage error={repos.error} onRetry={repos.reload} />}
      {repos.state === 'ok' &&
        (repos.data.length === 0 ? (
          <Notice>There is no repository you can see yet.</Notice>
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
      {ended && <Notice tone="success">{ended}</Notice>}
      {created && (
        <SecretOnce label={`Publish token for ${created.session.repo}`} value={created.session.token}>
          <p className="muted">
            Valid for <strong>{created.session.repo}</strong> only; it expires <Time iso={created.session.expires_at} />. Use it as the password with
            any user name.
          </p>
          {sessionCommands(created.base, created.format, created.session.repo, created.session.token).map((s) => (
            <CodeBlock key={s.title} title={s.title} code={s.code} lang={s.lang} />
          ))}
          <div className="actions">
            <button type="button" onClick={() => setCreated(null)}>
              Hide
            </button>
            <button type="button" className="danger-outline" onClick={end}>
              End this session now
            </button>
          </div>
        </SecretOnce>
      )}
    </section>
  );
}

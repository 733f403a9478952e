import { useEffect, useRef, useState } from 'react';
import { ApiError, del, enc } from '../../api/client';
import { CodeBlock } from '../../components/code-block';
import { Time } from '../../components/format';
import { SecretOnce } from '../../components/secret-once';
import { Notice } from '../../components/states';
import type { StartedSession } from './manual-session';
import { sessionCommands } from './session-commands';

/** The token of a session just started, shown once with ready-to-paste commands; it can be ended at once with its own token. */
export function StartedSessionPanel({ started, onClose, onEnded }: { started: StartedSession; onClose(): void; onEnded(): void }) {
  const { session, format, base } = started;
  const [error, setError] = useState('');
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    panel.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [session.id]);
  const end = async () => {
    try {
      await del(`/api/publish/sessions/${enc(session.id)}`, { Authorization: `Bearer ${session.token}` });
      onEnded();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    }
  };
  return (
    <div ref={panel}>
      <SecretOnce label={`Publish token for ${session.repo}`} value={session.token}>
        <p className="muted">
          Valid for <strong>{session.repo}</strong> only; it expires <Time iso={session.expires_at} />. Use it as the password with any user name.
        </p>
        {sessionCommands(base, format, session.repo, session.token).map((s) => (
          <CodeBlock key={s.title} title={s.title} code={s.code} lang={s.lang} />
        ))}
        {error && <Notice tone="warn">{error}</Notice>}
        <div className="actions">
          <button type="button" onClick={onClose}>
            Hide
          </button>
          <button type="button" className="danger-outline" onClick={end}>
            End this session now
          </button>
        </div>
      </SecretOnce>
    </div>
  );
}

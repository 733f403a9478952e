import { useState } from 'react';
import { post } from '../../api/client';
import { CopyButton } from '../../components/copy-button';
import { ErrorMessage } from '../../components/states';
import { useAction } from '../../use-action';

/** `available`: the user has a TOTP app or passkey; recovery codes stand in for one, so the server refuses them before. */
export function RecoverySection({ unused, available, onChange }: { unused: number; available: boolean; onChange(): void }) {
  const [codes, setCodes] = useState<string[] | null>(null);
  const { busy, error, run } = useAction();
  const [asking, setAsking] = useState(false);
  const generate = async () => {
    await run(async () => {
      const r = await post<{ codes: string[] }>('/api/security/recovery-codes', {});
      setCodes(r.codes);
      setAsking(false);
      onChange();
    });
  };
  const text = codes ? `Trove recovery codes (${location.host})\nEach code works once.\n\n${codes.join('\n')}\n` : '';
  const download = () => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    a.download = 'trove-recovery-codes.txt';
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  return (
    <section className="card" aria-labelledby="recovery-h">
      <h2 id="recovery-h">Recovery codes</h2>
      <p className="muted">
        One-time codes to sign in when your app or passkey is not at hand. They do not approve devices or start publish sessions.
      </p>
      <p>
        <strong data-testid="recovery-unused">{unused}</strong> unused {unused === 1 ? 'code' : 'codes'} left.
      </p>
      {codes && (
        <div className="secret" role="region" aria-label="New recovery codes">
          <p>
            <strong>Your new recovery codes</strong> — save them now: they are shown only once, and the old set no longer works.
          </p>
          <ol className="codes">
            {codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ol>
          <div className="actions">
            <CopyButton text={text} label="recovery codes" caption="Copy codes" />
            <button type="button" onClick={download}>
              Download as text
            </button>
            <button type="button" onClick={() => setCodes(null)}>
              I have saved them
            </button>
          </div>
        </div>
      )}
      <ErrorMessage error={error} />
      {!available && !codes && <p>Recovery codes can be made once you have an authenticator app or a passkey.</p>}
      {available &&
        !codes &&
        (unused > 0 && !asking ? (
          <button type="button" onClick={() => setAsking(true)}>
            Generate a new set
          </button>
        ) : (
          <div className="actions">
            {unused > 0 && <span>The {unused} unused codes will stop working.</span>}
            <button type="button" className={unused > 0 ? 'danger' : ''} onClick={generate} disabled={busy}>
              {busy ? 'Generating…' : unused > 0 ? 'Replace my codes' : 'Generate recovery codes'}
            </button>
            {asking && (
              <button type="button" onClick={() => setAsking(false)}>
                Cancel
              </button>
            )}
          </div>
        ))}
    </section>
  );
}

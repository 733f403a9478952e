import { useState } from 'react';
import { del, enc, post } from '../../api/client';
import type { SecurityState, TotpSetup } from '../../api/types';
import { ConfirmButton } from '../../components/confirm-button';
import { Field } from '../../components/field';
import { Time } from '../../components/format';
import { ErrorMessage, Empty } from '../../components/states';
import { TotpSetupPanel } from './totp-setup';
import { useAction } from '../../use-action';

export function TotpSection({ items, onChange }: { items: SecurityState['totp']; onChange(): void }) {
  const [name, setName] = useState('Authenticator app');
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const { busy, error, run } = useAction();
  const begin = async () => {
    await run(async () => {
      setSetup(await post<TotpSetup>('/api/security/totp/begin', { name }));
    });
  };
  return (
    <section className="card" aria-labelledby="totp-h">
      <h2 id="totp-h">Authenticator apps</h2>
      <p className="muted">Time-based one-time codes (TOTP) from an app such as Aegis, Google Authenticator, 1Password or KeePassXC.</p>
      {items.length ? (
        <ul className="rows">
          {items.map((t) => (
            <li key={t.id}>
              <span>
                <strong>{t.name}</strong> <span className="muted">added <Time iso={t.created_at} /></span>
              </span>
              <ConfirmButton
                label="Remove"
                confirm={`Remove ${t.name}`}
                onConfirm={async () => {
                  await run(async () => {
                    await del(`/api/security/totp/${enc(t.id)}`);
                    onChange();
                  });
                }}
              />
            </li>
          ))}
        </ul>
      ) : (
        !setup && <Empty>No authenticator app yet.</Empty>
      )}
      <ErrorMessage error={error} />
      {setup ? (
        <TotpSetupPanel
          setup={setup}
          onCancel={() => setSetup(null)}
          onDone={() => {
            setSetup(null);
            onChange();
          }}
        />
      ) : (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void begin();
          }}
        >
          <Field label="Name for the new app" value={name} onChange={(e) => setName(e.target.value)} required maxLength={64} />
          <button type="submit" className={items.length ? '' : 'primary'} disabled={busy}>
            {busy ? 'Starting…' : 'Add an authenticator app'}
          </button>
        </form>
      )}
    </section>
  );
}

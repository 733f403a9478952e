import { useState } from 'react';
import { del, enc } from '../../api/client';
import type { SecurityState } from '../../api/types';
import { passkeysSupported, registerPasskey } from '../../api/webauthn';
import { ConfirmButton } from '../../components/confirm-button';
import { Field } from '../../components/field';
import { Time } from '../../components/format';
import { Empty, ErrorMessage, Notice } from '../../components/states';
import { useAction } from '../../use-action';

export function PasskeySection({ items, onChange }: { items: SecurityState['passkeys']; onChange(): void }) {
  const [name, setName] = useState('');
  const { busy, error, run } = useAction();
  const [added, setAdded] = useState('');
  const supported = passkeysSupported();
  return (
    <section className="card" aria-labelledby="passkey-h">
      <h2 id="passkey-h">Passkeys</h2>
      <p className="muted">A passkey signs you in with your device's screen lock or a security key; nothing to type.</p>
      {items.length ? (
        <ul className="rows">
          {items.map((p) => (
            <li key={p.id}>
              <span>
                <strong>{p.name || 'Passkey'}</strong> <span className="muted">added <Time iso={p.created_at} /></span>
                {p.last_used_at !== undefined && (
                  <span className="muted">
                    {' '}
                    · last used <Time iso={p.last_used_at} />
                  </span>
                )}
              </span>
              <ConfirmButton
                label="Remove"
                confirm={`Remove ${p.name || 'passkey'}`}
                onConfirm={async () => {
                  await run(async () => {
                    await del(`/api/security/passkeys/${enc(p.id)}`);
                    onChange();
                  });
                }}
              />
            </li>
          ))}
        </ul>
      ) : (
        <Empty>No passkey yet.</Empty>
      )}
      {added && <Notice tone="success">Passkey “{added}” added.</Notice>}
      <ErrorMessage error={error} />
      {supported ? (
        <form
          className="inline-form"
          onSubmit={async (e) => {
            e.preventDefault();
            setAdded('');
            const n = name.trim() || 'Passkey';
            await run(async () => {
              await registerPasskey(n);
              setAdded(n);
              setName('');
              onChange();
            });
          }}
        >
          <Field label="Name for the new passkey" placeholder="e.g. Laptop" value={name} onChange={(e) => setName(e.target.value)} maxLength={64} />
          <button type="submit" disabled={busy}>
            {busy ? 'Waiting for your device…' : 'Add a passkey'}
          </button>
        </form>
      ) : (
        <Notice tone="warn">This browser cannot use passkeys here. Passkeys need HTTPS (or http://localhost) and a browser with WebAuthn.</Notice>
      )}
    </section>
  );
}

import { useState } from 'react';
import { post } from '../../api/client';
import { Field } from '../../components/field';
import { ErrorMessage } from '../../components/states';
import { useAction } from '../../use-action';

const EXPIRY = [
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '1 year', days: 365 },
  { label: 'Never', days: 0 },
];

/** Name and expiry of a new read token; the parent shows the token once. */
export function CreateToken({ onCreated }: { onCreated(t: { name: string; token: string }): void }) {
  const [name, setName] = useState('');
  const [days, setDays] = useState(90);
  const { busy, error, run } = useAction();
  return (
    <form
      className="card inline-form"
      aria-label="Create a read token"
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          const r = await post<{ token: string; name?: string }>('/api/tokens', { name: name.trim(), ...(days ? { expires_in_days: days } : {}) });
          onCreated({ name: name.trim(), token: r.token });
          setName('');
        });
      }}
    >
      <Field label="Token name" placeholder="e.g. build server" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      <div className="field">
        <label htmlFor="token-expiry">Expires after</label>
        <select id="token-expiry" value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {EXPIRY.map((x) => (
            <option key={x.days} value={x.days}>
              {x.label}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create token'}
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}

import { useState } from 'react';
import { enc, patch } from '../../api/client';
import { Field } from '../../components/field';
import { ErrorMessage, Notice } from '../../components/states';
import { useAction } from '../../use-action';

export function PasswordSection({ username }: { username: string }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const { busy, error, setError, run } = useAction();
  const [done, setDone] = useState(false);
  return (
    <section className="card" aria-labelledby="password-h">
      <h2 id="password-h">Password</h2>
      <form
        className="grid-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setDone(false);
          if (next !== again) return setError('The new passwords do not match.');
          await run(async () => {
            await patch(`/api/users/${enc(username)}`, { current_password: current, password: next });
            setDone(true);
            setCurrent('');
            setNext('');
            setAgain('');
          });
        }}
      >
        <Field label="Current password" type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
        <Field label="New password" type="password" autoComplete="new-password" minLength={8} required value={next} onChange={(e) => setNext(e.target.value)} hint="At least 8 characters." />
        <Field label="New password again" type="password" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
        <div>
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Change password'}
          </button>
        </div>
      </form>
      <ErrorMessage error={error} />
      {done && <Notice tone="success">Password changed.</Notice>}
    </section>
  );
}

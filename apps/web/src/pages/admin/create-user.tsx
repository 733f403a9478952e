import { useState } from 'react';
import { post } from '../../api/client';
import type { User } from '../../api/types';
import { Checkbox, Field } from '../../components/field';
import { ErrorMessage } from '../../components/states';
import { useAction } from '../../use-action';

/** An admin creates a local user with an initial password; the user sets up a second factor at first sign-in. */
export function CreateUser({ onCreated, onCancel }: { onCreated(u: User): void; onCancel(): void }) {
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const { busy, error, run } = useAction();
  return (
    <section className="card" aria-labelledby="new-user-h">
      <h2 id="new-user-h">New user</h2>
      <form
        className="grid-form"
        onSubmit={async (e) => {
          e.preventDefault();
          await run(async () => {
            onCreated(await post<User>('/api/users', { username: username.trim(), password, email: email.trim(), is_admin: admin }));
          });
        }}
      >
        <Field label="User name" required autoComplete="off" value={username} onChange={(e) => setUsername(e.target.value)} />
        <Field label="Email" type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} hint="Optional." />
        <Field label="Initial password" type="password" autoComplete="new-password" required minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} hint="At least 8 characters. Hand it over privately." />
        <Checkbox label="Administrator" checked={admin} onChange={(e) => setAdmin(e.target.checked)} />
        <ErrorMessage error={error} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create user'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

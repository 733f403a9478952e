import { useState } from 'react';
import { post } from '../../api/client';
import type { LoginAnswer } from '../../api/types';
import { Field } from '../../components/field';
import { methodsOf, type Method } from './methods';

/** Step one: user name and password; the answer says whether a second factor follows or setup comes first. */
export function PasswordStep({ onSecond, onSetupOnly, onError }: { onSecond(m: Method[]): void; onSetupOnly(): void; onError(e: string): void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        onError('');
        try {
          const a = await post<LoginAnswer>('/api/auth/login', { username, password });
          if ('second_factor' in a && a.second_factor === true) onSecond(methodsOf(a.methods ?? []));
          else onSetupOnly();
        } catch (err) {
          onError((err as Error).message);
          setBusy(false);
        }
      }}
    >
      <Field label="User name" name="username" autoComplete="username" required autoFocus value={username} onChange={(e) => setUsername(e.target.value)} />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      <button type="submit" className="primary full" disabled={busy}>
        {busy ? 'Signing in…' : 'Continue'}
      </button>
    </form>
  );
}


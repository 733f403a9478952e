import { useEffect, useRef, useState } from 'react';
import { ApiError, post } from '../../api/client';
import { assertPasskey, passkeysSupported } from '../../api/webauthn';
import type { Method } from './methods';

const LABELS: Record<Method, string> = { totp: 'Authenticator app', passkey: 'Passkey', recovery: 'Recovery code' };

/** Step two: a TOTP code, a passkey or a recovery code, as the server offers. */
export function SecondStep({ methods, onDone, onError, onRestart }: { methods: Method[]; onDone(): Promise<void>; onError(e: string): void; onRestart(): void }) {
  const usable = methods.filter((m) => m !== 'passkey' || passkeysSupported());
  const [method, setMethod] = useState<Method>(usable[0] ?? 'recovery');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
  }, [method]);

  const send = async (body: () => Promise<Record<string, unknown>>) => {
    setBusy(true);
    onError('');
    try {
      await post('/api/auth/login/second', await body());
      await onDone();
    } catch (err) {
      onError((err as Error).message);
      setBusy(false);
      // The pending sign-in is gone (it lasts minutes): start again from the password.
      if (err instanceof ApiError && err.status === 401 && /expired/i.test(err.message)) onRestart();
    }
  };

  return (
    <div className="second">
      <p>Confirm it is you with your second factor.</p>
      {usable.length > 1 && (
        <div role="group" aria-label="Second factor" className="segmented">
          {usable.map((m) => (
            <button key={m} type="button" aria-pressed={m === method} onClick={() => (setMethod(m), setCode(''), onError(''))}>
              {LABELS[m]}
            </button>
          ))}
        </div>
      )}
      {method === 'passkey' ? (
        <button type="button" className="primary full" disabled={busy} onClick={() => send(async () => ({ passkey: await assertPasskey('/api/auth/login/passkey') }))}>
          {busy ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
        </button>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void send(async () => (method === 'totp' ? { totp_code: code.replace(/\s/g, '') } : { recovery_code: code.trim() }));
          }}
        >
          <div className="field">
            <label htmlFor="second-code">{method === 'totp' ? '6-digit code from your authenticator app' : 'One of your recovery codes'}</label>
            <input
              id="second-code"
              ref={input}
              name={method === 'totp' ? 'totp_code' : 'recovery_code'}
              inputMode={method === 'totp' ? 'numeric' : 'text'}
              autoComplete="one-time-code"
              required
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </div>
          <button type="submit" className="primary full" disabled={busy}>
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </form>
      )}
      <button type="button" className="link" onClick={onRestart}>
        Use another account
      </button>
    </div>
  );
}

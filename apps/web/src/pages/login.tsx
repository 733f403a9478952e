import { useEffect, useRef, useState } from 'react';
import { ApiError, get, post } from '../api/client';
import type { AuthConfig, LoginAnswer } from '../api/types';
import { assertPasskey, passkeysSupported } from '../api/webauthn';
import { Field } from '../components/field';
import { ErrorMessage } from '../components/states';
import { link, navigate, safeNext } from '../router';
import { useSession } from '../session';
import { useLoad } from '../use-load';
import { loginError } from './login-reasons';

type Method = 'totp' | 'passkey' | 'recovery';

/** The server's method names, read leniently (`recovery_code`, `webauthn`, ...). */
function methodsOf(names: string[]): Method[] {
  const out = new Set<Method>();
  for (const n of names.map((x) => x.toLowerCase())) {
    if (n.includes('totp') || n === 'otp') out.add('totp');
    else if (n.includes('passkey') || n.includes('webauthn')) out.add('passkey');
    else if (n.includes('recovery')) out.add('recovery');
  }
  return (['passkey', 'totp', 'recovery'] as const).filter((m) => out.has(m));
}


export function LoginPage({ query }: { query: URLSearchParams }) {
  const { session, refresh } = useSession();
  const config = useLoad('auth-config', () => get<AuthConfig>('/api/auth/config'));
  const [step, setStep] = useState<{ name: 'password' } | { name: 'second'; methods: Method[] }>({ name: 'password' });
  const [error, setError] = useState(loginError(query.get('error')));
  useEffect(() => setError(loginError(query.get('error'))), [query.get('error')]);
  const next = safeNext(query.get('next'));

  const done = async () => {
    await refresh();
    navigate(next);
  };

  if (session.state === 'user' && step.name === 'password' && !query.get('error'))
    return (
      <section className="narrow">
        <h1 tabIndex={-1}>Signed in</h1>
        <p>
          You are signed in as <strong>{session.me.username}</strong>. <a href={next}>Continue</a>
        </p>
      </section>
    );

  const oidc = config.state === 'ok' && config.data.oidc;
  const passwordLogin = config.state !== 'ok' || config.data.password_login !== false;
  return (
    <section className="narrow card login">
      <h1 tabIndex={-1}>Sign in to Trove</h1>
      <ErrorMessage error={error} />
      {step.name === 'password' ? (
        <>
          {passwordLogin && (
            <PasswordStep
              onError={setError}
              onSecond={(methods) => {
                setError('');
                setStep({ name: 'second', methods });
              }}
              onSetupOnly={async () => {
                await refresh();
                navigate(link('security', { setup: '1', next: query.get('next') ?? undefined }));
              }}
            />
          )}
          {oidc && (
            <div className="sso">
              {passwordLogin && <p className="or">or</p>}
              <a className="button" href="/api/auth/oidc/login">
                Sign in with single sign-on
              </a>
              <small className="hint">Single sign-on is for administrators.</small>
            </div>
          )}
        </>
      ) : (
        <SecondStep methods={step.methods} onError={setError} onDone={done} onRestart={() => setStep({ name: 'password' })} />
      )}
    </section>
  );
}

function PasswordStep({ onSecond, onSetupOnly, onError }: { onSecond(m: Method[]): void; onSetupOnly(): void; onError(e: string): void }) {
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

const LABELS: Record<Method, string> = { totp: 'Authenticator app', passkey: 'Passkey', recovery: 'Recovery code' };

function SecondStep({ methods, onDone, onError, onRestart }: { methods: Method[]; onDone(): Promise<void>; onError(e: string): void; onRestart(): void }) {
  const usable = methods.filter((m) => m !== 'passkey' || passkeysSupported());
  const [method, setMethod] = useState<Method>(usable[0] ?? 'recovery');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), [method]);

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

import { useEffect, useState } from 'react';
import { get } from '../../api/client';
import type { AuthConfig } from '../../api/types';
import { ErrorMessage } from '../../components/states';
import { link, navigate, safeNext } from '../../router';
import { useSession } from '../../session';
import { useLoad } from '../../use-load';
import { loginError } from './login-reasons';
import type { Method } from './methods';
import { PasswordStep } from './password-step';
import { SecondStep } from './second-step';

export function LoginPage({ query }: { query: URLSearchParams }) {
  const { session, refresh } = useSession();
  const config = useLoad('auth-config', () => get<AuthConfig>('/api/auth/config'));
  const [step, setStep] = useState<{ name: 'password' } | { name: 'second'; methods: Method[] }>({ name: 'password' });
  const [error, setError] = useState(loginError(query.get('error')));
  useEffect(() => {
    setError(loginError(query.get('error')));
  }, [query.get('error')]);
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
      <p className="muted login-sub">{step.name === 'password' ? `Artifacts, packages and files at ${location.host}` : 'One more step'}</p>
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
                Sign in with SSO
              </a>
              <small className="hint">
                {config.data.admin_password_login ? 'Single sign-on (SSO) is for administrators.' : 'Administrators sign in with SSO; their password does not work here.'}
              </small>
            </div>
          )}
        </>
      ) : (
        <SecondStep methods={step.methods} onError={setError} onDone={done} onRestart={() => setStep({ name: 'password' })} />
      )}
    </section>
  );
}


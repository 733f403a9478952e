import { useEffect } from 'react';
import { get } from '../../api/client';
import type { SecurityState } from '../../api/types';
import { ErrorMessage, Loading, Notice } from '../../components/states';
import { useSession } from '../../session';
import { useLoad } from '../../use-load';
import { safeNext } from '../../router';
import { PasskeySection } from './passkey-section';
import { PasswordSection } from './password-section';
import { RecoverySection } from './recovery-section';
import { TotpSection } from './totp-section';

export function SecurityPage({ setup, next }: { setup: boolean; next: string | null }) {
  const { session } = useSession();
  // SSO accounts have no password or second factor here (the second-factor routes are 403 for them).
  if (session.state === 'user' && session.me.kind !== 'local')
    return (
      <section>
        <h1 tabIndex={-1}>Security</h1>
        <Notice>
          Single sign-on accounts have no password or second factor in Trove: your identity provider checks your sign-in, so there is nothing
          to set up here. Change your password or second factor with your identity provider.
        </Notice>
      </section>
    );
  return <LocalSecurity setup={setup} next={next} />;
}

function LocalSecurity({ setup, next }: { setup: boolean; next: string | null }) {
  const { session, refresh } = useSession();
  const sec = useLoad('security', () => get<SecurityState>('/api/security'));
  const me = session.state === 'user' ? session.me : null;
  const changed = () => {
    sec.reload();
    void refresh();
  };
  // A setup-only session becomes a full one once a factor exists: re-read /api/me then.
  const has = sec.state === 'ok' && sec.data.second_factor;
  useEffect(() => {
    if (has && me?.second_factor_required) void refresh();
  }, [has]);

  return (
    <section>
      <h1 tabIndex={-1}>Security</h1>
      {me?.second_factor_required && (
        <Notice tone="warn">
          <strong>Set up a second factor to continue.</strong> Add an authenticator app or a passkey below; Trove asks for it when you sign in,
          approve a device or start a publish session.
        </Notice>
      )}
      {!me?.second_factor_required && setup && has && (
        <Notice tone="success">
          Your second factor is set up. <a href={safeNext(next)}>{next && !next.startsWith('/security') ? 'Continue where you were going' : 'Continue to the repositories'}</a>, and keep a
          set of recovery codes somewhere safe.
        </Notice>
      )}
      {sec.state === 'loading' && <Loading what="your second factors" />}
      {sec.state === 'error' && <ErrorMessage error={sec.error} onRetry={sec.reload} />}
      {sec.state === 'ok' && (
        <div className="stack">
          <TotpSection items={sec.data.totp} onChange={changed} />
          <PasskeySection items={sec.data.passkeys} onChange={changed} />
          <RecoverySection unused={sec.data.recovery_codes} available={sec.data.second_factor && !me?.second_factor_required} onChange={changed} />
          {me && !me.second_factor_required && <PasswordSection username={me.username} />}
        </div>
      )}
    </section>
  );
}

import { useId, useState } from 'react';
import { get } from '../api/client';
import type { FreshProof, SecurityState } from '../api/types';
import { assertPasskey, passkeysSupported } from '../api/webauthn';
import { useMe } from '../session';
import { useAction } from '../use-action';
import { useLoad } from '../use-load';
import { ErrorMessage, Loading, Notice } from './states';

/**
 * A fresh second-factor check (SPEC: device approval and manual sessions): a TOTP code or a
 * passkey assertion from `POST /api/security/passkeys/assert`. Recovery codes are refused there.
 */
export function FreshProofForm(props: { action: string; onProof(proof: FreshProof): Promise<void>; disabled?: boolean }) {
  const me = useMe();
  // SSO accounts have no second factor in Trove (adding one is 403): no link to a security page that cannot help.
  if (me && me.kind !== 'local')
    return <Notice tone="warn">{props.action} needs a fresh check with an authenticator app or a passkey, which single sign-on accounts do not have in Trove.</Notice>;
  return <LocalProofForm {...props} />;
}

function LocalProofForm({ action, onProof, disabled }: { action: string; onProof(proof: FreshProof): Promise<void>; disabled?: boolean }) {
  const sec = useLoad('security', () => get<SecurityState>('/api/security'));
  const id = useId();
  const [code, setCode] = useState('');
  const { busy, error, run: attempt } = useAction();

  const run = (make: () => Promise<FreshProof>) =>
    attempt(async () => {
      await onProof(await make());
      setCode('');
    });

  if (sec.state === 'loading') return <Loading what="your second factors" />;
  if (sec.state === 'error') return <ErrorMessage error={sec.error} onRetry={sec.reload} />;
  const hasTotp = sec.data.totp.length > 0;
  const hasPasskey = sec.data.passkeys.length > 0 && passkeysSupported();
  if (!hasTotp && !hasPasskey)
    return (
      <Notice tone="warn">
        {action} needs a fresh check with an authenticator app or a passkey. <a href="#/security">Set one up on the security page</a>.
      </Notice>
    );
  return (
    <div className="proof">
      {hasTotp && (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => ({ totp_code: code.replace(/\s/g, '') }));
          }}
        >
          <div className="field">
            <label htmlFor={id}>Authenticator app code</label>
            <input
              id={id}
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]{6,8}"
              maxLength={8}
              required
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </div>
          <button type="submit" className="primary" disabled={busy || disabled}>
            {busy ? 'Checking…' : `${action} with code`}
          </button>
        </form>
      )}
      {hasTotp && hasPasskey && <p className="or">or</p>}
      {hasPasskey && (
        <button type="button" className={hasTotp ? '' : 'primary'} disabled={busy || disabled} onClick={() => run(async () => ({ passkey: await assertPasskey('/api/security/passkeys/assert') }))}>
          {action} with a passkey
        </button>
      )}
      <ErrorMessage error={error} />
    </div>
  );
}

import { useEffect, useState } from 'react';
import { post } from '../../api/client';
import type { TotpSetup } from '../../api/types';
import { CopyButton } from '../../components/copy-button';
import { ErrorMessage } from '../../components/states';
import { useAction } from '../../use-action';

/** Step two of TOTP setup: scan (QR code drawn locally) or type the secret, then confirm with a code. */
export function TotpSetupPanel({ setup, onDone, onCancel }: { setup: TotpSetup; onDone(): void; onCancel(): void }) {
  const [qr, setQr] = useState('');
  const [code, setCode] = useState('');
  const { busy, error, run } = useAction();
  useEffect(() => {
    let live = true;
    // Loaded on demand: only this panel needs the QR encoder.
    void import('qrcode').then((q) =>
      q.toDataURL(setup.otpauth_url, { margin: 1, width: 220, errorCorrectionLevel: 'M' }).then((u) => live && setQr(u), () => undefined),
    );
    return () => {
      live = false;
    };
  }, [setup.otpauth_url]);
  const grouped = setup.secret.replace(/(.{4})/g, '$1 ').trim();
  return (
    <div className="setup" role="region" aria-label="Set up an authenticator app">
      <ol className="steps">
        <li>
          <p>Scan this code with your authenticator app.</p>
          <div className="qr">{qr ? <img src={qr} width={220} height={220} alt="QR code holding the authenticator secret" /> : <span className="muted">Drawing the QR code…</span>}</div>
          <p className="small">
            On a phone? <a href={setup.otpauth_url}>Open it in an authenticator app on this device</a>.
          </p>
        </li>
        <li>
          <p>Or type this secret into the app (time-based, 6 digits, 30 seconds):</p>
          <div className="secret-value">
            <code data-testid="totp-secret" data-secret={setup.secret}>
              {grouped}
            </code>
            <CopyButton text={setup.secret} label="secret" />
          </div>
        </li>
        <li>
          <form
            className="inline-form"
            onSubmit={async (e) => {
              e.preventDefault();
              await run(async () => {
                await post('/api/security/totp/confirm', { setup_id: setup.setup_id, code: code.replace(/\s/g, '') });
                onDone();
              });
            }}
          >
            <div className="field">
              <label htmlFor="totp-confirm">Enter the code the app shows</label>
              <input id="totp-confirm" inputMode="numeric" autoComplete="one-time-code" required maxLength={8} value={code} onChange={(e) => setCode(e.target.value)} />
            </div>
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Checking…' : 'Confirm'}
            </button>
            <button type="button" onClick={onCancel}>
              Cancel
            </button>
          </form>
          <ErrorMessage error={error} />
          <small className="hint">The setup expires after 10 minutes.</small>
        </li>
      </ol>
    </div>
  );
}

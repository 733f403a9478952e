import { useEffect, useState } from 'react';
import { get, post, url } from '../../api/client';
import type { Device, FreshProof, PendingEnrollment } from '../../api/types';
import { Time } from '../../components/format';
import { FreshProofForm } from '../../components/fresh-proof';
import { ErrorMessage, Notice } from '../../components/states';
import { useAction } from '../../use-action';

/** RFC 8628 user side: look up the code the device shows, then approve it with a fresh second factor. */
export function ApproveDevice({ initialCode, onApproved }: { initialCode: string; onApproved(): void }) {
  const [code, setCode] = useState(initialCode);
  const [pending, setPending] = useState<PendingEnrollment | null>(null);
  const [approved, setApproved] = useState<Device | null>(null);
  const { busy, error, run } = useAction();

  const lookup = async (c: string) => {
    setPending(null);
    setApproved(null);
    await run(async () => {
      setPending(await get<PendingEnrollment>(url('/api/devices/enroll', { user_code: c.trim() })));
    });
  };
  useEffect(() => {
    setCode(initialCode);
    if (initialCode) void lookup(initialCode);
  }, [initialCode]);

  const approve = async (proof: FreshProof) => {
    const d = await post<Device>('/api/devices/approve', { user_code: pending!.user_code, ...proof });
    setApproved(d);
    setPending(null);
    setCode('');
    onApproved();
  };

  return (
    <section className="card" aria-labelledby="approve-h">
      <h2 id="approve-h">Approve a device</h2>
      <p className="muted">Enter the code your Gradle or Maven plugin printed. Approving lets that device start publish sessions as you.</p>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void lookup(code);
        }}
      >
        <div className="field">
          <label htmlFor="user-code">Device code</label>
          <input
            id="user-code"
            className="code-input"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            required
            placeholder="ABCD-EFGH"
            value={code}
            onChange={(e) => setCode(e.target.value.toUpperCase())}
          />
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Looking up…' : 'Look up'}
        </button>
      </form>
      <ErrorMessage error={error} />
      {pending && pending.state !== 'pending' && <Notice tone="warn">This code was already used.</Notice>}
      {pending && pending.state === 'pending' && (
        <div className="pending-device" role="region" aria-label="Device waiting for approval">
          <dl className="facts">
            <dt>Device</dt>
            <dd>
              <strong data-testid="pending-device">{pending.name}</strong> <span className="badge">{pending.kind}</span>
            </dd>
            <dt>Code</dt>
            <dd>
              <code>{pending.user_code}</code>
            </dd>
            <dt>Key</dt>
            <dd>
              <code className="key">{pending.public_key}</code>
            </dd>
            <dt>Code expires</dt>
            <dd>
              <Time iso={pending.expires_at} />
            </dd>
          </dl>
          <p>Approve only if you started this enrollment yourself just now.</p>
          <FreshProofForm action="Approve" onProof={approve} />
          <button type="button" className="link" onClick={() => setPending(null)}>
            Do not approve
          </button>
        </div>
      )}
      {approved && (
        <Notice tone="success">
          Device <strong>{approved.name}</strong> approved. Return to your terminal: the build continues by itself.
        </Notice>
      )}
    </section>
  );
}

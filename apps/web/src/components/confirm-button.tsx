import { useEffect, useRef, useState } from 'react';

/**
 * A destructive action asks once more in place ("Delete" → "Delete NAME" + Cancel, Escape
 * cancels), which keeps keyboard focus where it was, unlike a modal prompt.
 */
export function ConfirmButton({ label, confirm, onConfirm, busyLabel }: { label: string; confirm: string; onConfirm(): Promise<void> | void; busyLabel?: string }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) yes.current?.focus();
    else if (wasAsking.current) first.current?.focus(); // back to "Delete" after Cancel
    wasAsking.current = asking;
  }, [asking]);
  if (!asking)
    return (
      <button ref={first} type="button" className="danger-outline" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="confirm" onKeyDown={(e) => e.key === 'Escape' && !busy && setAsking(false)}>
      <button
        ref={yes}
        type="button"
        className="danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {busy ? (busyLabel ?? 'Working…') : confirm}
      </button>
      <button type="button" onClick={() => setAsking(false)} disabled={busy}>
        Cancel
      </button>
    </span>
  );
}

import { useEffect, useRef, useState } from 'react';

/**
 * A destructive action asks once more in place ("Delete" → "Really delete?" + Cancel),
 * which keeps keyboard focus where it was, unlike a modal prompt.
 */
export function ConfirmButton({ label, confirm, onConfirm, busyLabel }: { label: string; confirm: string; onConfirm(): Promise<void> | void; busyLabel?: string }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" className="danger-outline" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="confirm">
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

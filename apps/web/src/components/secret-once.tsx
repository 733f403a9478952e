import type { ReactNode } from 'react';
import { CopyButton } from './copy-button';

/** A secret the server shows exactly once (read tokens, publish tokens). */
export function SecretOnce({ label, value, children }: { label: string; value: string; children?: ReactNode }) {
  return (
    <div className="secret" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong> — copy it now: it is shown only once.
      </p>
      <div className="secret-value">
        <code data-testid="secret">{value}</code>
        <CopyButton text={value} label={label} />
      </div>
      {children}
    </div>
  );
}

import { useState } from 'react';
import { ApiError, get, post } from '../../../api/client';
import type { StorageMove, SystemInfo } from '../../../api/types';
import { Time } from '../../../components/format';
import { link } from '../../../router';
import { useAction } from '../../../use-action';
import { useLoad } from '../../../use-load';
import { moveProgress } from '../storage/move-math';

/** `GET /api/storage/moves/current`, or null when there has been no move (404). */
export async function currentMove(): Promise<StorageMove | null> {
  try {
    return await get<StorageMove>('/api/storage/moves/current');
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/** The store in use now and the newest storage move, above the storage settings. */
export function StorageStatus() {
  const sys = useLoad('system', () => get<SystemInfo>('/api/system'));
  const move = useLoad('move-current', currentMove);
  return (
    <dl className="facts" data-testid="storage-status">
      <dt>Current store</dt>
      <dd>{sys.state === 'ok' ? `${sys.data.storage.backend} · ${sys.data.storage.location}` : sys.state === 'error' ? sys.error : '…'}</dd>
      <dt>Last move</dt>
      <dd>
        {move.state === 'loading' ? (
          '…'
        ) : move.state === 'error' ? (
          move.error
        ) : move.data ? (
          <>
            <a href={link('admin', 'storage', 'moves', move.data.id)}>
              {move.data.state} · {moveProgress(move.data).done} of {move.data.total} files
            </a>{' '}
            <span className="muted">
              · started <Time iso={move.data.started_at} />
            </span>
          </>
        ) : (
          <span className="muted">None yet. Changing the store copies existing files in the background.</span>
        )}
      </dd>
    </dl>
  );
}

/** "Test connection" / "Test discovery": the form's values merged over the saved ones, checked by the server, saved nowhere. */
export function ConnectionTest({ path, label, body }: { path: string; label: string; body(): unknown }) {
  const { busy, run } = useAction();
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  return (
    <>
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          run(async () => {
            setResult(null);
            try {
              await post(path, body());
              setResult({ ok: true, text: `${label}: it works.` });
            } catch (e) {
              setResult({ ok: false, text: `${label} failed: ${(e as Error).message}` });
            }
          })
        }
      >
        {busy ? 'Testing…' : label}
      </button>
      {result && (
        <span role="status" className={result.ok ? 'ok-text' : 'bad-text'} data-testid="connection-test">
          {result.text}
        </span>
      )}
    </>
  );
}

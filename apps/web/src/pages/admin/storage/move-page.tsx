import { useEffect, useRef, useState } from 'react';
import { enc, get, request } from '../../../api/client';
import type { MoveFailure, StorageMove } from '../../../api/types';
import { ConfirmButton } from '../../../components/confirm-button';
import { formatDate, formatSize } from '../../../components/format';
import { PagedList } from '../../../components/paged-list';
import { ErrorMessage, Loading, Notice } from '../../../components/states';
import { Table } from '../../../components/table';
import { link } from '../../../router';
import { useAction } from '../../../use-action';
import { usePaged } from '../../../use-paged';
import { AdminNav } from '../admin-nav';
import { currentMove } from '../settings/storage-status';
import { formatSeconds, moveProgress, rateAndEta, type Sample } from './move-math';

const POLL_MS = 1000;

/** Where the move copies to (`moveJson`'s `target`: the location without credentials). */
function targetText(t: StorageMove['target']): string {
  const where = [t.endpoint, t.bucket, t.prefix, t.root].filter(Boolean).join(' / ');
  return [t.storage, where].filter(Boolean).join(' · ') || '—';
}

/** After the switch the old store is emptied in the background; `old_removed` stays null until then. */
const cleaningUp = (m: StorageMove) => m.state === 'done' && m.old_removed === null;
/** Polls while the old store is emptied: enough for a large store, bounded if that cleanup never reports. */
const CLEANUP_POLLS = 150;

/** A storage move while it copies (polled every second) and after: progress, rate, time left, failures, cancel. */
export function MovePage({ id }: { id: string }) {
  const [move, setMove] = useState<StorageMove | null | undefined>(undefined);
  const [loadError, setLoadError] = useState('');
  const samples = useRef<Sample[]>([]);
  const [tick, setTick] = useState(0);
  const { error, run } = useAction();

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let cleanupPolls = 0;
    const poll = async () => {
      try {
        const m = id === 'current' ? await currentMove() : await get<StorageMove>(`/api/storage/moves/${enc(id)}`);
        if (!live) return;
        setLoadError('');
        setMove(m);
        if (m) {
          samples.current = [...samples.current.slice(-120), { at: Date.now(), done: moveProgress(m).done }];
          if (m.state === 'copying') timer = setTimeout(poll, POLL_MS);
          else if (cleaningUp(m) && cleanupPolls++ < CLEANUP_POLLS) timer = setTimeout(poll, POLL_MS * 2);
        }
      } catch (e) {
        if (!live) return;
        setLoadError((e as Error).message);
        timer = setTimeout(poll, POLL_MS * 5);
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id, tick]);

  const failures = usePaged<MoveFailure>(move && move.failed > 0 ? `/api/storage/moves/${enc(move.id)}/failures` : null);
  const progress = move ? moveProgress(move) : null;
  const rate = move && move.state === 'copying' ? rateAndEta(samples.current, move.total) : null;

  return (
    <section>
      <AdminNav current="settings" />
      <nav aria-label="Breadcrumb" className="crumbs">
        <a href={link('admin', 'settings', { group: 'storage' })}>Storage settings</a> <span aria-hidden="true">/</span> Storage move
      </nav>
      <h1 tabIndex={-1}>Storage move</h1>
      {move === undefined && !loadError && <Loading what="the storage move" />}
      <ErrorMessage error={loadError} onRetry={() => setTick((t) => t + 1)} />
      {move === null && <Notice>There has been no storage move yet. Changing the storage location in the settings starts one when files exist.</Notice>}
      {move && progress && (
        <>
          <p className="lede">
            Existing files are copied to the new store in the background. Downloads and uploads continue meanwhile: new files go to the new store, and files not yet copied are read from the old
            one.
          </p>
          <div className="card">
            <p>
              <span className={`state ${move.state === 'copying' ? 'pending' : move.state === 'done' ? 'open' : 'failed'}`} data-testid="move-state">
                {move.state}
              </span>{' '}
              <span className="muted">to {targetText(move.target)}</span>
            </p>
            <label htmlFor="move-progress" className="small">
              {progress.done} of {move.total} files ({Math.round(progress.fraction * 100)}%)
            </label>
            <progress id="move-progress" className="progress" max={1} value={progress.fraction} />
            <dl className="stats">
              <div>
                <dt>Copied</dt>
                <dd data-testid="move-copied">
                  {move.copied} / {move.total}
                </dd>
              </div>
              <div>
                <dt>Already there</dt>
                <dd>{move.skipped}</dd>
              </div>
              <div>
                <dt>Failed</dt>
                <dd>{move.failed}</dd>
              </div>
              <div>
                <dt>Rate</dt>
                <dd>{rate ? `${rate.perSecond.toFixed(1)} files/s` : '—'}</dd>
              </div>
              <div>
                <dt>Time left</dt>
                <dd>{move.state !== 'copying' ? '—' : rate?.secondsLeft != null ? formatSeconds(rate.secondsLeft) : 'estimating…'}</dd>
              </div>
            </dl>
            <dl className="facts">
              <dt>Started</dt>
              <dd>{formatDate(move.started_at)}</dd>
              <dt>Finished</dt>
              <dd>{formatDate(move.finished_at)}</dd>
              <dt>Copied data</dt>
              <dd>{formatSize(move.bytes)}</dd>
              {move.state === 'done' && (
                <>
                  <dt>Old store</dt>
                  <dd data-testid="move-old-removed">
                    {move.note
                      ? move.note
                      : move.old_removed === null
                        ? 'being emptied…'
                        : `emptied (${move.old_removed} ${move.old_removed === 1 ? 'file' : 'files'} removed)`}
                  </dd>
                </>
              )}
            </dl>
            {move.error && <ErrorMessage error={move.error} />}
            {move.state === 'copying' && (
              <div className="actions">
                <ConfirmButton
                  label="Cancel the move"
                  confirm="Cancel: keep using the old store"
                  onConfirm={async () => {
                    await run(async () => {
                      setMove(await request<StorageMove>('DELETE', `/api/storage/moves/${enc(move.id)}`));
                    });
                  }}
                />
                <span className="muted small">Cancelling keeps the old store; files already copied stay in the new one.</span>
              </div>
            )}
            <ErrorMessage error={error} />
          </div>
          {move.failed > 0 && (
            <section aria-labelledby="failures-h">
              <h2 id="failures-h">Files that could not be copied</h2>
              <PagedList list={failures} what="failures" empty="No failures.">
                {(items) => (
                  <Table columns={['File', 'Blob key', 'Reason']}>
                    {items.map((f) => (
                      <tr key={`${f.asset_id}-${f.key}`}>
                        <td>{String(f.asset_id)}</td>
                        <td className="wrap-cell">
                          <code>{f.key}</code>
                        </td>
                        <td className="wrap-cell">{f.reason}</td>
                      </tr>
                    ))}
                  </Table>
                )}
              </PagedList>
            </section>
          )}
        </>
      )}
    </section>
  );
}

import { useEffect, useState } from 'react';
import { enc, get, request } from '../../../api/client';
import type { MirrorFailure, MirrorSync } from '../../../api/types';
import { ConfirmButton } from '../../../components/confirm-button';
import { formatDate, formatSize } from '../../../components/format';
import { PagedList } from '../../../components/paged-list';
import { ErrorMessage, Loading } from '../../../components/states';
import { Table } from '../../../components/table';
import { link } from '../../../router';
import { useAction } from '../../../use-action';
import { usePaged } from '../../../use-paged';
import { AdminNav } from '../admin-nav';
import { counters, syncTotals } from './sync-counters';

const POLL_MS = 1500;
const ENDED = new Set(['done', 'failed', 'cancelled', 'succeeded', 'finished']);
const show = (k: string, v: number) => (k === 'bytes' ? formatSize(v) : String(v));

/** One sync: per-repository counters updated live while it runs, its failures, and cancel. */
export function SyncPage({ id }: { id: string }) {
  const [sync, setSync] = useState<MirrorSync | null>(null);
  const [loadError, setLoadError] = useState('');
  const [tick, setTick] = useState(0);
  const { error, run } = useAction();
  const failures = usePaged<MirrorFailure>(`/api/mirror/syncs/${enc(id)}/failures`);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const s = await get<MirrorSync>(`/api/mirror/syncs/${enc(id)}`);
        if (!live) return;
        setLoadError('');
        setSync(s);
        if (!ENDED.has(s.state)) timer = setTimeout(poll, POLL_MS);
        else failures.reload();
      } catch (e) {
        if (live) setLoadError((e as Error).message);
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id, tick]);

  const running = !!sync && !ENDED.has(sync.state);
  const repoKeys = sync ? [...new Set((sync.repos ?? []).flatMap((r) => counters(r).map(([k]) => k)))] : [];
  return (
    <section>
      <AdminNav current="mirror" />
      <nav aria-label="Breadcrumb" className="crumbs">
        <a href={link('admin', 'mirror')}>Mirror</a> <span aria-hidden="true">/</span>{' '}
        {sync?.source_id ? <a href={link('admin', 'mirror', sync.source_id)}>Source</a> : 'Source'} <span aria-hidden="true">/</span> Sync
      </nav>
      <h1 tabIndex={-1}>Sync</h1>
      {!sync && !loadError && <Loading what="the sync" />}
      <ErrorMessage error={loadError} onRetry={() => setTick((t) => t + 1)} />
      {sync && (
        <>
          <div className="card">
            <p>
              <span className={`state ${running ? 'pending' : sync.state === 'done' ? 'open' : 'failed'}`} data-testid="sync-state">
                {sync.state}
              </span>{' '}
              {sync.trigger && <span className="muted">started by {sync.trigger === 'manual' ? 'hand' : sync.trigger}</span>}
            </p>
            <dl className="stats">
              {Object.entries(syncTotals(sync)).map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{show(k, v)}</dd>
                </div>
              ))}
            </dl>
            <dl className="facts">
              <dt>Started</dt>
              <dd>{formatDate(sync.started_at)}</dd>
              <dt>Finished</dt>
              <dd>{formatDate(sync.finished_at)}</dd>
            </dl>
            {sync.error && <ErrorMessage error={sync.error} />}
            {running && (
              <ConfirmButton
                label="Cancel the sync"
                confirm="Cancel: files already imported stay"
                onConfirm={async () => {
                  await run(async () => setSync(await request<MirrorSync>('DELETE', `/api/mirror/syncs/${enc(sync.id)}`)));
                }}
              />
            )}
            <ErrorMessage error={error} />
          </div>
          {(sync.repos ?? []).length > 0 && (
            <>
              <h2>Per repository</h2>
              <Table columns={['Repository', 'Into', ...repoKeys]}>
                {(sync.repos ?? []).map((r) => {
                  const c = Object.fromEntries(counters(r));
                  return (
                    <tr key={r.source_repo}>
                      <td>
                        {r.source_repo}
                        {r.state && <span className="muted small"> · {r.state}</span>}
                        {r.error && <div className="hint bad">{r.error}</div>}
                      </td>
                      <td>
                        <a href={link('repos', r.target)}>{r.target}</a>
                      </td>
                      {repoKeys.map((k) => (
                        <td key={k}>{c[k] === undefined ? '—' : show(k, c[k])}</td>
                      ))}
                    </tr>
                  );
                })}
              </Table>
            </>
          )}
          <h2>Files not imported</h2>
          <PagedList list={failures} what="failures" empty="None.">
            {(items) => (
              <Table columns={['Repository', 'Path', 'Reason']}>
                {items.map((f, i) => (
                  <tr key={`${f.source_repo}-${f.path}-${i}`}>
                    <td>{f.source_repo ?? '—'}</td>
                    <td className="wrap-cell">
                      <code>{f.path}</code>
                    </td>
                    <td className="wrap-cell">{f.reason}</td>
                  </tr>
                ))}
              </Table>
            )}
          </PagedList>
        </>
      )}
    </section>
  );
}

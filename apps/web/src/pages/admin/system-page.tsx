import { get } from '../../api/client';
import type { DiskSpace, SystemInfo } from '../../api/types';
import { formatDate, formatSize } from '../../components/format';
import { ErrorMessage, Loading } from '../../components/states';
import { link } from '../../router';
import { useLoad } from '../../use-load';
import { AdminNav } from './admin-nav';
import { formatSeconds } from './storage/move-math';

function Disk({ d }: { d: DiskSpace | null }) {
  if (!d) return <span className="muted">not a local directory</span>;
  const pct = d.total_bytes ? Math.round((d.free_bytes / d.total_bytes) * 100) : 0;
  return (
    <>
      {formatSize(d.free_bytes)} free of {formatSize(d.total_bytes)} ({pct}%) <span className="muted">· {d.path}</span>
    </>
  );
}

/** `GET /api/system`: version, uptime, where blobs live, how much is stored, how much room is left. */
export function SystemPage() {
  const sys = useLoad('system', () => get<SystemInfo>('/api/system'));
  return (
    <section>
      <AdminNav current="system" />
      <h1 tabIndex={-1}>System</h1>
      {sys.state === 'loading' && <Loading what="the system status" />}
      {sys.state === 'error' && <ErrorMessage error={sys.error} onRetry={sys.reload} />}
      {sys.state === 'ok' && (
        <>
          <dl className="stats" data-testid="system-stats">
            <div>
              <dt>Repositories</dt>
              <dd>{sys.data.repositories}</dd>
            </div>
            <div>
              <dt>Files</dt>
              <dd>{sys.data.files}</dd>
            </div>
            <div>
              <dt>Stored</dt>
              <dd>{formatSize(sys.data.bytes)}</dd>
            </div>
            <div>
              <dt>Database</dt>
              <dd>{sys.data.database_bytes === null ? '—' : formatSize(sys.data.database_bytes)}</dd>
            </div>
          </dl>
          <div className="card">
            <dl className="facts">
              <dt>Version</dt>
              <dd>{sys.data.version}</dd>
              <dt>Up for</dt>
              <dd>
                {formatSeconds(sys.data.uptime_seconds)} <span className="muted">· since {formatDate(sys.data.started_at)}</span>
              </dd>
              <dt>Storage</dt>
              <dd>
                {sys.data.storage.backend} · {sys.data.storage.location}{' '}
                ·{' '}
                <a href={link('admin', 'settings', { group: 'storage' })}>storage settings</a>
              </dd>
              <dt>Data directory</dt>
              <dd>
                <Disk d={sys.data.disk.data_dir} />
              </dd>
              <dt>Blob directory</dt>
              <dd>
                <Disk d={sys.data.disk.blob_root} />
              </dd>
            </dl>
            <button type="button" onClick={sys.reload}>
              Refresh
            </button>
          </div>
        </>
      )}
    </section>
  );
}

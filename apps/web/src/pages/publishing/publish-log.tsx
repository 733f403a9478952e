import type { PublishSession } from '../../api/types';
import { Time } from '../../components/format';
import { PagedList } from '../../components/paged-list';
import { Table } from '../../components/table';
import { usePaged } from '../../use-paged';
import { PROOF } from './session-list';

type LogEntry = PublishSession & { user: string | null; trust: { id: string | null; name: string | null } | null };

/** Every publish session (admins only), newest first: who or which CI run, how it was proven, and how it ended. */
export function PublishLog() {
  const list = usePaged<LogEntry>('/api/publish/log');
  return (
    <section aria-labelledby="log-h">
      <h2 id="log-h">Publish log (all users)</h2>
      <p className="muted">Every publish session, kept 30 days after it expires.</p>
      <PagedList list={list} what="log entries" empty="Nobody has published yet.">
        {(items) => (
          <Table columns={['Repository', 'Who', 'Proof', 'State', 'Started']}>
            {items.map((s) => (
              <tr key={s.id}>
                <td>
                  <a href={`#/repos/${encodeURIComponent(s.repo)}`}>{s.repo}</a>
                </td>
                <td>{s.user ?? s.actor}</td>
                <td>
                  {PROOF[s.proof] ?? s.proof}
                  {s.device?.name && <span className="muted"> ({s.device.name})</span>}
                  {s.trust?.name && <span className="muted"> ({s.trust.name})</span>}
                </td>
                <td>
                  <span className={`state ${s.state}`}>{s.state}</span>
                  {s.closed_reason && <span className="muted"> · {s.closed_reason}</span>}
                </td>
                <td>
                  <Time iso={s.created_at} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </PagedList>
    </section>
  );
}

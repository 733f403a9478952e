import type { PublishSession } from '../../api/types';
import { Time } from '../../components/format';
import { PagedList } from '../../components/paged-list';
import { Table } from '../../components/table';
import { usePaged } from '../../use-paged';
import { SessionCells } from './session-list';

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
                <SessionCells s={s} who={s.user ?? s.actor} />
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

import type { PublishSession } from '../../api/types';
import { Time } from '../../components/format';
import { PagedList } from '../../components/paged-list';
import { Table } from '../../components/table';
import { link } from '../../router';
import { usePaged } from '../../use-paged';

const PROOF: Record<string, string> = { device: 'device key', manual: 'by hand', oidc: 'CI' };

/** The cells a session's row shares with the publish log: its repository, `who` (the log's column), how it was proven (by which device or trust policy), and its state. */
export function SessionCells({ s, who }: { s: PublishSession & { trust?: { name: string | null } | null }; who?: string }) {
  return (
    <>
      <td>
        <a href={link('repos', s.repo)}>{s.repo}</a>
      </td>
      {who !== undefined && <td>{who}</td>}
      <td>
        {PROOF[s.proof] ?? s.proof}
        {s.device?.name && <span className="muted"> ({s.device.name})</span>}
        {s.trust?.name && <span className="muted"> ({s.trust.name})</span>}
      </td>
      <td>
        <span className={`state ${s.state}`}>{s.state}</span>
        {s.closed_reason && <span className="muted"> · {s.closed_reason}</span>}
      </td>
    </>
  );
}

export function SessionList() {
  const list = usePaged<PublishSession>('/api/publish/sessions');
  return (
    <section aria-labelledby="sessions-h">
      <h2 id="sessions-h">Your publish sessions</h2>
      <p className="muted">A session ends by itself when it expires; revoking its device ends it too.</p>
      <PagedList list={list} what="sessions" empty="No publish sessions yet.">
        {(items) => (
          <Table columns={['Repository', 'Proof', 'State', 'Started', 'Expires']}>
            {items.map((s) => (
              <tr key={s.id}>
                <SessionCells s={s} />
                <td>
                  <Time iso={s.created_at} />
                </td>
                <td>
                  <Time iso={s.expires_at} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </PagedList>
    </section>
  );
}

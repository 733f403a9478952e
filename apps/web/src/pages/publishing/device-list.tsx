import { del, enc } from '../../api/client';
import type { Device } from '../../api/types';
import { ConfirmButton } from '../../components/confirm-button';
import { Time } from '../../components/format';
import { PagedList } from '../../components/paged-list';
import { ErrorMessage } from '../../components/states';
import { Table } from '../../components/table';
import { useMe } from '../../session';
import { useAction } from '../../use-action';
import { usePaged } from '../../use-paged';

export function DeviceList() {
  const me = useMe();
  const list = usePaged<Device>('/api/devices');
  const { error, run } = useAction();
  const others = me?.is_admin && list.items.some((d) => d.user && d.user !== me.username);
  return (
    <section aria-labelledby="devices-h">
      <h2 id="devices-h">{me?.is_admin ? 'Enrolled devices (all users)' : 'Your devices'}</h2>
      <ErrorMessage error={error} />
      <PagedList list={list} what="devices" empty={me?.kind === 'local' ? 'No enrolled devices. Run trove login on a machine (see above): it sends you here to approve it.' : 'No enrolled devices.'}>
        {(items) => (
          <Table columns={['Device', others && 'User', 'Enrolled', 'Last used', 'Key expires']} actions>
            {items.map((d) => (
              <tr key={d.id}>
                <td>
                  <strong>{d.name}</strong> <span className="badge">{d.kind}</span>
                </td>
                {others && <td>{d.user}</td>}
                <td>
                  <Time iso={d.created_at} />
                </td>
                <td>
                  <Time iso={d.last_used_at} />
                </td>
                <td>
                  <Time iso={d.expires_at} />
                </td>
                <td className="end">
                  <ConfirmButton
                    label="Revoke"
                    confirm={`Revoke ${d.name}`}
                    onConfirm={async () => {
                      await run(async () => {
                        await del(`/api/devices/${enc(d.id)}`);
                        list.reload();
                      });
                    }}
                  />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </PagedList>
    </section>
  );
}

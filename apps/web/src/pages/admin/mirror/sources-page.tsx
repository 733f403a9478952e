import { useState } from 'react';
import { post } from '../../../api/client';
import type { MirrorSource } from '../../../api/types';
import { Field } from '../../../components/field';
import { PagedList } from '../../../components/paged-list';
import { ErrorMessage } from '../../../components/states';
import { Table } from '../../../components/table';
import { link, navigate } from '../../../router';
import { useAction } from '../../../use-action';
import { usePaged } from '../../../use-paged';
import { AdminNav } from '../admin-nav';

/** Adding a source checks the connection first (400 refused credentials, 502 unreachable): the answer says which. */
function AddSource({ onCancel }: { onCancel(): void }) {
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  return (
    <form
      className="card grid-form"
      aria-label="Add a source"
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          const s = await post<MirrorSource>('/api/mirror/sources', { name: name.trim(), base_url: baseUrl.trim(), username, password });
          navigate(link('admin', 'mirror', s.id, { added: '1' }));
        });
      }}
    >
      <Field label="Name" required value={name} onChange={(e) => setName(e.target.value)} hint="For you: e.g. old-nexus." />
      <Field label="Nexus URL" required type="url" placeholder="https://nexus.example.com" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} hint="The address its web UI and REST API answer on." />
      <Field label="User name" required autoComplete="off" value={username} onChange={(e) => setUsername(e.target.value)} hint="A Nexus user that can read every repository to mirror." />
      <Field label="Password" required type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} hint="Stored encrypted; never shown again." />
      <ErrorMessage error={error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Checking the connection…' : 'Check and add'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** External sources (Nexus) in name order, and adding one. */
export function SourcesPage() {
  const list = usePaged<MirrorSource>('/api/mirror/sources');
  const [adding, setAdding] = useState(false);
  return (
    <section>
      <AdminNav current="mirror" />
      <div className="page-head">
        <h1 tabIndex={-1}>Mirror</h1>
        {!adding && (
          <button type="button" className="primary" onClick={() => setAdding(true)}>
            Add a source
          </button>
        )}
      </div>
      <p className="lede">
        Copy a running Nexus into Trove and keep it in sync while clients still use it. Mirrored repositories are read-only here until you cut over; after the cut-over they are Trove's own and
        the source is kept as history.
      </p>
      {adding && <AddSource onCancel={() => setAdding(false)} />}
      <PagedList list={list} what="sources" empty="No sources yet.">
        {(items) => (
          <Table columns={['Name', 'URL', 'User', 'State']}>
            {items.map((s) => (
              <tr key={s.id}>
                <td>
                  <a href={link('admin', 'mirror', s.id)}>{s.name}</a>
                </td>
                <td className="wrap-cell">{s.base_url}</td>
                <td>{s.username}</td>
                <td>{s.state === 'cut_over' || s.cut_over || s.cut_over_at ? <span className="state expired">cut over</span> : <span className="state open">{s.syncing ? 'syncing' : 'mirroring'}</span>}</td>
              </tr>
            ))}
          </Table>
        )}
      </PagedList>
    </section>
  );
}

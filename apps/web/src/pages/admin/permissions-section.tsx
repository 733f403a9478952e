import { useState } from 'react';
import { del, enc, put } from '../../api/client';
import type { Permission, User } from '../../api/types';
import { ConfirmButton } from '../../components/confirm-button';
import { PagedList } from '../../components/paged-list';
import { ErrorMessage } from '../../components/states';
import { useAction } from '../../use-action';
import { usePaged } from '../../use-paged';

/** Who may read or write a repository (`write` includes `read`). */
export function PermissionsSection({ repo }: { repo: string }) {
  const base = `/api/repos/${enc(repo)}/permissions`;
  const list = usePaged<Permission>(base);
  const users = usePaged<User>('/api/users', 200);
  const [username, setUsername] = useState('');
  const [level, setLevel] = useState<'read' | 'write'>('read');
  const { busy, error, run } = useAction();

  const set = (u: string, l: 'read' | 'write') =>
    run(async () => {
      await put(`${base}/${enc(u)}`, { level: l });
      list.reload();
    });
  const granted = new Set(list.items.map((p) => p.username));
  return (
    <section className="card" aria-labelledby="perm-h">
      <h2 id="perm-h">Permissions</h2>
      <p className="muted">Admins can do everything. Others need read to download and write to publish.</p>
      <PagedList list={list} what="permissions" empty="Nobody has been given access yet.">
        {(items) => (
          <ul className="rows">
            {items.map((p) => (
              <li key={p.username}>
                <strong>{p.username}</strong>
                <span className="row-actions">
                  <label className="sr-only" htmlFor={`lvl-${p.username}`}>
                    Access of {p.username}
                  </label>
                  <select id={`lvl-${p.username}`} value={p.level} onChange={(e) => set(p.username, e.target.value as 'read' | 'write')}>
                    <option value="read">read</option>
                    <option value="write">write</option>
                  </select>
                  <ConfirmButton
                    label="Remove"
                    confirm={`Remove ${p.username}`}
                    onConfirm={async () => {
                      await run(async () => {
                        await del(`${base}/${enc(p.username)}`);
                        list.reload();
                      });
                    }}
                  />
                </span>
              </li>
            ))}
          </ul>
        )}
      </PagedList>
      <form
        className="inline-form"
        aria-label="Grant access"
        onSubmit={async (e) => {
          e.preventDefault();
          await set(username.trim(), level);
          setUsername('');
        }}
      >
        <div className="field">
          <label htmlFor="perm-user">User</label>
          <input id="perm-user" list="perm-users" required autoComplete="off" value={username} onChange={(e) => setUsername(e.target.value)} />
          <datalist id="perm-users">
            {users.items
              .filter((u) => !granted.has(u.username))
              .map((u) => (
                <option key={u.username} value={u.username} />
              ))}
          </datalist>
        </div>
        <div className="field">
          <label htmlFor="perm-level">Access</label>
          <select id="perm-level" value={level} onChange={(e) => setLevel(e.target.value as 'read' | 'write')}>
            <option value="read">read</option>
            <option value="write">write (publish)</option>
          </select>
        </div>
        <button type="submit" disabled={busy}>
          Grant
        </button>
      </form>
      <ErrorMessage error={error} />
    </section>
  );
}

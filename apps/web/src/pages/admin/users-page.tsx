import { useState } from 'react';
import type { User } from '../../api/types';
import { PagedList } from '../../components/paged-list';
import { Notice } from '../../components/states';
import { usePaged } from '../../use-paged';
import { CreateUser } from './create-user';
import { UserRow } from './user-row';

export function UsersPage() {
  const list = usePaged<User>('/api/users');
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState('');
  return (
    <section>
      <div className="page-head">
        <h1 tabIndex={-1}>Users</h1>
        {!creating && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New user
          </button>
        )}
      </div>
      {creating && (
        <CreateUser
          onCancel={() => setCreating(false)}
          onCreated={(u) => {
            setCreating(false);
            setNotice(`User ${u.username} created. They set up a second factor at their first sign-in.`);
            list.reload();
          }}
        />
      )}
      {notice && <Notice tone="success">{notice}</Notice>}
      <PagedList list={list} what="users" empty="No users.">
        {(items) => (
          <ul className="user-list">
            {items.map((u) => (
              <UserRow key={u.username} user={u} onChange={list.reload} />
            ))}
          </ul>
        )}
      </PagedList>
    </section>
  );
}

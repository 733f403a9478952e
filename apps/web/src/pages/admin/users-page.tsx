import { useState } from 'react';
import type { User } from '../../api/types';
import { Empty, ErrorMessage, Notice, Pager } from '../../components/states';
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
      {list.error && !list.items.length ? (
        <ErrorMessage error={list.error} onRetry={list.reload} />
      ) : !list.loading && !list.items.length ? (
        <Empty>No users.</Empty>
      ) : (
        list.items.length > 0 && (
          <ul className="user-list">
            {list.items.map((u) => (
              <UserRow key={u.username} user={u} onChange={list.reload} />
            ))}
          </ul>
        )
      )}
      <Pager next={list.next} loading={list.loading} error={list.items.length ? list.error : ''} onMore={list.loadMore} what="users" />
    </section>
  );
}

import { useState } from 'react';
import { del, enc, patch } from '../../api/client';
import type { User } from '../../api/types';
import { ConfirmButton } from '../../components/confirm-button';
import { Time } from '../../components/format';
import { ErrorMessage, Notice } from '../../components/states';
import { useMe } from '../../session';
import { useAction } from '../../use-action';

/** One user with the admin's actions: enable/disable, admin flag, email, reset password. */
export function UserRow({ user, onChange }: { user: User; onChange(): void }) {
  const me = useMe();
  const self = me?.username === user.username;
  const { busy, error, run } = useAction();
  const [notice, setNotice] = useState('');
  const [resetting, setResetting] = useState(false);
  const [editingEmail, setEditingEmail] = useState(false);
  const [email, setEmail] = useState(user.email);
  const [password, setPassword] = useState('');

  const change = (body: Record<string, unknown>, done: string) => {
    setNotice('');
    return run(async () => {
      await patch(`/api/users/${enc(user.username)}`, body);
      setNotice(done);
      onChange();
    });
  };

  return (
    <li className={`card user${user.disabled ? ' disabled' : ''}`}>
      <div className="user-head">
        <div>
          <strong>{user.username}</strong>
          {user.is_admin && <span className="badge dark">admin</span>}
          {user.kind === 'oidc' && <span className="badge">SSO</span>}
          {user.disabled && <span className="badge warn">disabled</span>}
          {user.kind === 'local' && user.second_factor_required && <span className="badge">no second factor</span>}
          <div className="muted small">
            {user.email || 'no email'} · created <Time iso={user.created_at} />
          </div>
        </div>
        <div className="row-actions">
          <button type="button" disabled={busy || self} title={self ? 'You cannot disable yourself' : undefined} onClick={() => change({ disabled: !user.disabled }, user.disabled ? `${user.username} can sign in again.` : `${user.username} is disabled; their tokens stopped working.`)}>
            {user.disabled ? 'Enable' : 'Disable'}
          </button>
          <button type="button" disabled={busy || self} title={self ? 'You cannot drop your own admin flag' : undefined} onClick={() => change({ is_admin: !user.is_admin }, user.is_admin ? `${user.username} is no longer an admin.` : `${user.username} is now an admin.`)}>
            {user.is_admin ? 'Remove admin' : 'Make admin'}
          </button>
          <button type="button" aria-expanded={editingEmail} disabled={busy} onClick={() => setEditingEmail(!editingEmail)}>
            Edit email
          </button>
          {user.kind === 'local' && !self && (
            <button type="button" aria-expanded={resetting} disabled={busy} onClick={() => setResetting(!resetting)}>
              Reset password
            </button>
          )}
          {/* One's own password is changed with the current one, which the Security page asks for. */}
          {user.kind === 'local' && self && <a href="#/security">Change your password</a>}
          {/* A lost phone or security key: the user signs in with the password and sets up a new factor. */}
          {user.kind === 'local' && !self && !user.second_factor_required && (
            <ConfirmButton
              label="Reset second factor"
              confirm={`Remove every second factor of ${user.username}`}
              onConfirm={async () => {
                await run(async () => {
                  setNotice('');
                  await del(`/api/users/${enc(user.username)}/second-factors`);
                  setNotice(`${user.username} has no second factor now and was signed out; their next sign-in sets up a new one.`);
                  onChange();
                });
              }}
            />
          )}
        </div>
      </div>
      {editingEmail && (
        <form
          className="inline-form"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await change({ email: email.trim() }, `Email of ${user.username} saved.`)) setEditingEmail(false);
          }}
        >
          <div className="field">
            <label htmlFor={`email-${user.username}`}>Email of {user.username}</label>
            <input id={`email-${user.username}`} type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
          </div>
          <button type="submit" className="primary" disabled={busy}>
            Save email
          </button>
          <button type="button" onClick={() => setEditingEmail(false)}>
            Cancel
          </button>
        </form>
      )}
      {resetting && (
        <form
          className="inline-form"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await change({ password }, `New password set for ${user.username}.`)) {
              setResetting(false);
              setPassword('');
            }
          }}
        >
          <div className="field">
            <label htmlFor={`pw-${user.username}`}>New password for {user.username}</label>
            <input id={`pw-${user.username}`} type="password" autoComplete="new-password" minLength={8} required value={password} onChange={(e) => setPassword(e.target.value)} />
          </div>
          <button type="submit" className="primary" disabled={busy}>
            Set password
          </button>
          <button type="button" onClick={() => setResetting(false)}>
            Cancel
          </button>
        </form>
      )}
      <ErrorMessage error={error} />
      {notice && <Notice tone="success">{notice}</Notice>}
    </li>
  );
}

import { useState } from 'react';
import { post } from './api/client';
import { link, navigate, type Route } from './router';
import { useSession } from './session';

function NavLink({ href, current, children }: { href: string; current: boolean; children: string }) {
  return (
    <a href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

export function Header({ route }: { route: Route }) {
  const { session, refresh } = useSession();
  const [open, setOpen] = useState(false);
  const me = session.state === 'user' ? session.me : null;
  const at = (...s: string[]) => s.every((x, i) => route.segments[i] === x);
  const setupOnly = !!me && me.second_factor_required && me.kind === 'local';
  const signOut = async () => {
    // Leave the page first: a signed-in page would otherwise send us to sign-in with itself as `next`.
    navigate(link('login'));
    await post('/api/auth/logout').catch(() => undefined);
    await refresh();
  };
  return (
    <header className="top">
      <div className="bar">
        <a href="#/" className="brand" aria-label="Trove, repositories">
          <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
            <path fill="currentColor" d="M3 7.5 12 3l9 4.5v9L12 21l-9-4.5v-9Zm9-2.3L5.6 8.4 12 11.6l6.4-3.2L12 5.2ZM5 10v5.3l6 3v-5.3l-6-3Zm8 8.3 6-3V10l-6 3v5.3Z" />
          </svg>
          Trove
        </a>
        <button type="button" className="menu-toggle" aria-expanded={open} aria-controls="nav" onClick={() => setOpen(!open)}>
          Menu
        </button>
      </div>
      <nav id="nav" aria-label="Main" className={open ? 'open' : ''} onClick={() => setOpen(false)} onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
        {!setupOnly && (
          <NavLink href="#/" current={!route.segments[0] || at('repos')}>
            Repositories
          </NavLink>
        )}
        {me && !setupOnly && me.kind === 'local' && (
          <NavLink href="#/publishing" current={at('publishing')}>
            Publishing
          </NavLink>
        )}
        {me && !setupOnly && me.kind === 'local' && (
          <NavLink href="#/tokens" current={at('tokens')}>
            Tokens
          </NavLink>
        )}
        {me && me.kind === 'local' && (
          <NavLink href="#/security" current={at('security')}>
            Security
          </NavLink>
        )}
        {me?.is_admin && !setupOnly && (
          <NavLink href="#/admin/repos" current={at('admin', 'repos')}>
            Manage repos
          </NavLink>
        )}
        {me?.is_admin && !setupOnly && (
          <NavLink href="#/admin/users" current={at('admin', 'users')}>
            Users
          </NavLink>
        )}
        {me?.is_admin && !setupOnly && (
          <NavLink href="#/admin/system" current={at('admin') && !at('admin', 'repos') && !at('admin', 'users')}>
            Admin
          </NavLink>
        )}
        <span className="spacer" />
        {me ? (
          <span className="who">
            <span className="user" title={me.email || undefined}>
              {me.username}
              {me.is_admin && <span className="badge dark">admin</span>}
            </span>
            <button type="button" className="ghost" onClick={signOut}>
              Sign out
            </button>
          </span>
        ) : (
          session.state === 'anonymous' && !at('login') && <a href={link('login', { next: route.raw })}>Sign in</a>
        )}
      </nav>
    </header>
  );
}

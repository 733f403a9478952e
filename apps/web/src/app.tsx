import { useEffect, type ReactNode } from 'react';
import { ErrorBoundary } from './components/error-boundary';
import { ErrorMessage, Loading } from './components/states';
import { Header } from './header';
import { AdminRepoPage } from './pages/admin/admin-repo-page';
import { AdminReposPage } from './pages/admin/admin-repos-page';
import { UsersPage } from './pages/admin/users-page';
import { AuditPage, PublishLogPage } from './pages/admin/logs/log-pages';
import { SourcePage } from './pages/admin/mirror/source-page';
import { SourcesPage } from './pages/admin/mirror/sources-page';
import { SyncPage } from './pages/admin/mirror/sync-page';
import { SettingsPage } from './pages/admin/settings/settings-page';
import { SigningKeyPage } from './pages/admin/signing-key-page';
import { MovePage } from './pages/admin/storage/move-page';
import { SystemPage } from './pages/admin/system-page';
import { TrustsPage } from './pages/admin/trusts/trusts-page';
import { LoginPage } from './pages/login/login-page';
import { NotFound } from './pages/not-found';
import { PublishingPage } from './pages/publishing/publishing-page';
import { RepoPage } from './pages/repos/repo-page';
import { ReposPage } from './pages/repos/repos-page';
import { SecurityPage } from './pages/security/security-page';
import { TokensPage } from './pages/tokens/tokens-page';
import { link, navigate, useRoute, type Route } from './router';
import { useSession } from './session';

const TITLES: Record<string, string> = {
  login: 'Sign in',
  security: 'Security',
  tokens: 'Read tokens',
  publishing: 'Publishing',
  admin: 'Administration',
  system: 'System',
  settings: 'Settings',
  'signing-key': 'Signing key',
  trusts: 'CI trust policies',
  mirror: 'Mirror',
  audit: 'Audit log',
  'publish-log': 'Publish log',
  storage: 'Storage move',
  repos: 'Repositories',
};

/** Sends anonymous visitors to sign-in (unless `optional`) and back afterwards, and accounts without a second factor to set one up. */
function Gate({ route, admin, optional, children }: { route: Route; admin?: boolean; optional?: boolean; children: ReactNode }) {
  const { session } = useSession();
  const toLogin = session.state === 'anonymous' && !optional;
  const toSetup = session.state === 'user' && session.me.second_factor_required && session.me.kind === 'local' && route.segments[0] !== 'security';
  useEffect(() => {
    if (toLogin) navigate(link('login', { next: route.raw }));
    else if (toSetup) navigate(link('security', { setup: '1', next: route.raw }));
  }, [toLogin, toSetup, route.raw]);
  if (session.state === 'loading') return <Loading what="your account" />;
  if (session.state === 'error') return <ErrorMessage error={session.error} onRetry={() => location.reload()} />;
  if (toSetup || (session.state !== 'user' && !optional)) return null;
  if (admin && (session.state !== 'user' || !session.me.is_admin)) return <ErrorMessage error="This page is for admins only." />;
  return <>{children}</>;
}

/** The console's sections after the first day: `#/admin/<section>/...`. */
function AdminConsole({ route }: { route: Route }) {
  const [, section, third, fourth] = route.segments;
  const q = route.query;
  switch (section) {
    case undefined:
    case 'system':
      return <SystemPage />;
    case 'settings':
      return <SettingsPage group={q.get('group')} />;
    case 'storage':
      return third === 'moves' ? <MovePage id={fourth ?? 'current'} /> : <NotFound />;
    case 'signing-key':
      return <SigningKeyPage />;
    case 'trusts':
      return <TrustsPage key={third ?? ''} id={third} notice={q.get('created') === '1' ? 'Policy created. Paste one of the CI jobs below into your project.' : undefined} />;
    case 'mirror':
      if (third === 'syncs' && fourth) return <SyncPage id={fourth} />;
      return third ? <SourcePage key={third} id={third} added={q.get('added') === '1'} /> : <SourcesPage />;
    case 'audit':
      return <AuditPage query={q} />;
    case 'publish-log':
      return <PublishLogPage query={q} />;
    default:
      return <NotFound />;
  }
}

function Page({ route }: { route: Route }) {
  const [first, second] = route.segments;
  switch (first) {
    case undefined:
    case 'repos':
      // Open to anonymous readers; a session that still needs a second factor goes to set one up.
      return (
        <Gate route={route} optional>
          {second ? <RepoPage repo={second} query={route.query} /> : <ReposPage query={route.query} />}
        </Gate>
      );
    case 'login':
      return <LoginPage query={route.query} />;
    case 'security':
      return (
        <Gate route={route}>
          <SecurityPage setup={route.query.get('setup') === '1'} next={route.query.get('next')} />
        </Gate>
      );
    case 'tokens':
      return (
        <Gate route={route}>
          <TokensPage />
        </Gate>
      );
    case 'publishing':
      return (
        <Gate route={route}>
          <PublishingPage userCode={route.query.get('code') ?? route.query.get('user_code') ?? ''} />
        </Gate>
      );
    case 'admin':
      if (second === 'users')
        return (
          <Gate route={route} admin>
            <UsersPage />
          </Gate>
        );
      if (second === 'repos')
        return (
          <Gate route={route} admin>
            {route.segments[2] ? <AdminRepoPage name={route.segments[2]} created={route.query.get('created') === '1'} /> : <AdminReposPage creating={route.query.get('new') === '1'} />}
          </Gate>
        );
      return (
        <Gate route={route} admin>
          <AdminConsole route={route} />
        </Gate>
      );
    default:
      return <NotFound />;
  }
}

export function App() {
  const route = useRoute();
  const title = (route.segments[0] === 'admin' && TITLES[route.segments[1] ?? 'system']) || TITLES[route.segments[0] ?? 'repos'] || 'Trove';
  useEffect(() => {
    document.title = `${route.segments[1] && route.segments[0] === 'repos' ? route.segments[1] : title} · Trove`;
  }, [title, route.segments]);
  // Move focus to the new page's heading so keyboard and screen-reader users land on it.
  // A field the page focused itself (the sign-in form's user name) keeps the focus.
  useEffect(() => {
    const main = document.getElementById('main');
    const active = document.activeElement;
    if (main && active && active !== main && main.contains(active)) return;
    document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: true });
  }, [route.raw.split('?')[0]]);
  return (
    <>
      <a className="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <Header route={route} />
      <main id="main" tabIndex={-1}>
        <ErrorBoundary resetKey={route.raw}>
          <Page route={route} />
        </ErrorBoundary>
      </main>
    </>
  );
}

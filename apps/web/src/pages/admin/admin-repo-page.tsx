import { useState } from 'react';
import { enc, get } from '../../api/client';
import type { Repo } from '../../api/types';
import { ErrorMessage, Loading, Notice } from '../../components/states';
import { link } from '../../router';
import { useLoad } from '../../use-load';
import { PermissionsSection } from './permissions-section';
import { RepoForm } from './repo-form';

export function AdminRepoPage({ name, created }: { name: string; created: boolean }) {
  const repo = useLoad(`admin-repo:${name}`, () => get<Repo>(`/api/repos/${enc(name)}`));
  const [saved, setSaved] = useState(false);
  return (
    <section>
      <nav aria-label="Breadcrumb" className="crumbs">
        <a href={link('admin', 'repos')}>Manage repositories</a> <span aria-hidden="true">/</span>
      </nav>
      <div className="page-head">
        <h1 tabIndex={-1}>{name}</h1>
        <a className="button" href={link('repos', name)}>
          Browse files
        </a>
      </div>
      {created && <Notice tone="success">Repository {name} created. Give people access below.</Notice>}
      {saved && <Notice tone="success">Changes saved.</Notice>}
      {repo.state === 'loading' && <Loading what="the repository" />}
      {repo.state === 'error' && <ErrorMessage error={repo.error} onRetry={repo.reload} />}
      {repo.state === 'ok' && (
        <div className="two-col">
          <section className="card" aria-labelledby="settings-h">
            <h2 id="settings-h">Settings</h2>
            <RepoForm
              key={repo.data.updated_at}
              repo={repo.data}
              onSaved={() => {
                setSaved(true);
                repo.reload();
              }}
            />
          </section>
          <PermissionsSection repo={name} />
        </div>
      )}
    </section>
  );
}

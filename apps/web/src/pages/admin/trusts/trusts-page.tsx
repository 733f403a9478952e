import { useState } from 'react';
import { del, enc, get, getAll } from '../../../api/client';
import type { Repo, SettingsAnswer, Trust } from '../../../api/types';
import { CodeBlock } from '../../../components/code-block';
import { ConfirmButton } from '../../../components/confirm-button';
import { Time } from '../../../components/format';
import { Empty, ErrorMessage, Loading, Notice } from '../../../components/states';
import { Table } from '../../../components/table';
import { link, navigate } from '../../../router';
import { useAction } from '../../../use-action';
import { useLoad } from '../../../use-load';
import { AdminNav } from '../admin-nav';
import { ciSnippets } from './ci-snippets';
import { TrustForm } from './trust-form';

interface TrustData {
  trusts: Trust[];
  baseUrl: string;
  formats: Record<string, string>;
}

async function loadTrusts(): Promise<TrustData> {
  const [page, settings, repos] = await Promise.all([getAll<Trust>('/api/publish/trusts'), get<SettingsAnswer>('/api/settings'), getAll<Repo>('/api/repos')]);
  const base = settings.groups.flatMap((g) => g.settings).find((s) => s.key === 'base_url')?.value;
  return { trusts: page, baseUrl: (typeof base === 'string' && base) || location.origin, formats: Object.fromEntries(repos.map((r) => [r.name, r.format])) };
}

/**
 * CI trust policies (SPEC "Trust policy"): which CI identity tokens may open publish sessions
 * for which repositories. `id` selects one policy (`new` for the form), with its CI snippets.
 */
export function TrustsPage({ id, notice: initialNotice }: { id?: string; notice?: string }) {
  const data = useLoad('trusts', loadTrusts);
  const { error, run } = useAction();
  const [notice, setNotice] = useState(initialNotice ?? '');
  const [editing, setEditing] = useState(false);
  const selected = data.state === 'ok' && id && id !== 'new' ? data.data.trusts.find((t) => t.id === id) : undefined;

  return (
    <section>
      <AdminNav current="trusts" />
      <div className="page-head">
        <h1 tabIndex={-1}>CI trust policies</h1>
        {!id && (
          <a className="button primary" href={link('admin', 'trusts', 'new')}>
            New policy
          </a>
        )}
      </div>
      <p className="lede">
        A CI job proves who it is with its identity token (GitHub Actions, GitLab CI). A policy that matches the token's issuer, audience and claims lets it open a publish session for the
        repositories it lists, without any stored secret.
      </p>
      {notice && <Notice tone="success">{notice}</Notice>}
      <ErrorMessage error={error} />
      {data.state === 'loading' && <Loading what="trust policies" />}
      {data.state === 'error' && <ErrorMessage error={data.error} onRetry={data.reload} />}
      {data.state === 'ok' && id === 'new' && (
        <TrustForm
          baseUrl={data.data.baseUrl}
          onCancel={() => navigate(link('admin', 'trusts'))}
          onSaved={(t) => {
            data.reload();
            navigate(link('admin', 'trusts', t.id, { created: '1' }));
          }}
        />
      )}
      {data.state === 'ok' && id && id !== 'new' && !selected && <ErrorMessage error={`There is no trust policy ${id}.`} />}
      {data.state === 'ok' && selected && (
        <>
          <nav aria-label="Breadcrumb" className="crumbs">
            <a href={link('admin', 'trusts')}>All policies</a> <span aria-hidden="true">/</span> {selected.name}
          </nav>
          {editing ? (
            <TrustForm
              trust={selected}
              baseUrl={data.data.baseUrl}
              onCancel={() => setEditing(false)}
              onSaved={(t) => {
                setEditing(false);
                setNotice(`Policy ${t.name} saved. A change to what it trusts ended its open sessions.`);
                data.reload();
              }}
            />
          ) : (
            <div className="card">
              <div className="section-head">
                <h2>{selected.name}</h2>
                {selected.disabled && <span className="badge warn">disabled</span>}
              </div>
              <dl className="facts">
                <dt>Issuer</dt>
                <dd>{selected.issuer}</dd>
                <dt>Audience</dt>
                <dd>{selected.audience}</dd>
                <dt>Claims</dt>
                <dd>
                  {Object.entries(selected.claims).map(([k, v]) => (
                    <div key={k}>
                      <code>{k}</code> = {v.join(' or ')}
                    </div>
                  ))}
                </dd>
                <dt>Key set</dt>
                <dd>{/^https?:/.test(selected.jwks) ? selected.jwks : 'inline JWKS document'}</dd>
                <dt>Repositories</dt>
                <dd>{selected.repos.join(', ') || <span className="muted">none</span>}</dd>
                <dt>Changed</dt>
                <dd>
                  <Time iso={selected.updated_at} />
                </dd>
              </dl>
              <div className="actions">
                <button type="button" onClick={() => setEditing(true)}>
                  Edit policy
                </button>
              </div>
            </div>
          )}
          <h2>Use it from CI</h2>
          <p className="muted">
            Install the <code>trove</code> command-line client from this server and publish with <code>--oidc</code>: it exchanges the job's identity token for a publish session.
          </p>
          {ciSnippets(selected, data.data.baseUrl, data.data.formats).map((s) => (
            <CodeBlock key={s.title} title={s.title} code={s.code} lang={s.lang} />
          ))}
        </>
      )}
      {data.state === 'ok' && !id && (
        <>
          {data.data.trusts.length === 0 ? (
            <Empty>No trust policies yet. CI jobs cannot publish until one exists.</Empty>
          ) : (
            <Table columns={['Name', 'Issuer', 'Repositories', 'State', 'Changed']} actions>
              {data.data.trusts.map((t) => (
                <tr key={t.id}>
                  <td>
                    <a href={link('admin', 'trusts', t.id)}>{t.name}</a>
                  </td>
                  <td className="wrap-cell">{t.issuer}</td>
                  <td className="wrap-cell">{t.repos.join(', ')}</td>
                  <td>{t.disabled ? <span className="state expired">disabled</span> : <span className="state open">enabled</span>}</td>
                  <td>
                    <Time iso={t.updated_at} />
                  </td>
                  <td className="end">
                    <ConfirmButton
                      label="Delete"
                      confirm={`Delete ${t.name}`}
                      onConfirm={async () => {
                        await run(async () => {
                          await del(`/api/publish/trusts/${enc(t.id)}`);
                          setNotice(`Policy ${t.name} deleted; its open sessions ended.`);
                          data.reload();
                        });
                      }}
                    />
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
    </section>
  );
}

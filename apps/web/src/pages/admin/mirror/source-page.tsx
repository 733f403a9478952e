import { useEffect, useState } from 'react';
import { del, enc, get, patch, post, put } from '../../../api/client';
import type { MirrorRemoteRepo, MirrorSource, MirrorSync } from '../../../api/types';
import { ConfirmButton } from '../../../components/confirm-button';
import { Field } from '../../../components/field';
import { Time } from '../../../components/format';
import { PagedList } from '../../../components/paged-list';
import { ErrorMessage, Loading, Notice } from '../../../components/states';
import { Table } from '../../../components/table';
import { link, navigate } from '../../../router';
import { useAction } from '../../../use-action';
import { useLoad } from '../../../use-load';
import { usePaged } from '../../../use-paged';
import { AdminNav } from '../admin-nav';
import { syncTotals } from './sync-counters';

interface Mapping {
  source_repo: string;
  target: string;
  create: boolean;
}

/** The mapping as the source answers it: from `mappings`, or from the remote repos' own `target`. */
function mappingOf(s: MirrorSource): Record<string, Mapping> {
  const out: Record<string, Mapping> = {};
  for (const m of [...(s.mapping ?? []), ...(s.mappings ?? [])]) out[m.source_repo] = { source_repo: m.source_repo, target: m.target, create: !!m.create };
  for (const r of s.repos ?? []) if (r.target && !out[r.name]) out[r.name] = { source_repo: r.name, target: r.target, create: !!r.create };
  return out;
}

/** Proxy and group repositories hold no content of their own, so only hosted ones can be mirrored (the server says so in `mappable`). */
const mappable = (r: MirrorRemoteRepo) => r.mappable ?? (!r.type || r.type === 'hosted');

function MappingEditor({ source, cutOver, onSaved }: { source: MirrorSource; cutOver: boolean; onSaved(): void }) {
  const [rows, setRows] = useState<Record<string, Mapping>>(() => mappingOf(source));
  useEffect(() => setRows(mappingOf(source)), [source]);
  const { busy, error, run } = useAction();
  const [saved, setSaved] = useState(false);
  const repos = source.repos ?? [];
  const set = (name: string, m: Mapping | null) =>
    setRows((r) => {
      const n = { ...r };
      if (m) n[name] = m;
      else delete n[name];
      setSaved(false);
      return n;
    });
  return (
    <form
      aria-label="Repository mapping"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await run(() => put(`/api/mirror/sources/${enc(source.id)}/repos`, Object.values(rows)))) {
          setSaved(true);
          onSaved();
        }
      }}
    >
      <Table columns={['Remote repository', 'Format', 'Type', 'Mirror into', 'Create it']}>
        {repos.map((r) => {
          const m = rows[r.name];
          return (
            <tr key={r.name}>
              <td>
                <label className="field check">
                  <input
                    type="checkbox"
                    checked={!!m}
                    disabled={cutOver || !mappable(r)}
                    onChange={(e) => set(r.name, e.target.checked ? { source_repo: r.name, target: r.name, create: true } : null)}
                  />
                  <span>{r.name}</span>
                </label>
              </td>
              <td>
                {r.format}
                {mappable(r) && ruleOf(r) && <span className="muted small"> ({ruleOf(r)})</span>}
              </td>
              <td>{r.type}</td>
              <td>
                {mappable(r) ? (
                  <>
                    <label className="sr-only" htmlFor={`target-${r.name}`}>
                      Target repository for {r.name}
                    </label>
                    <input id={`target-${r.name}`} value={m?.target ?? ''} disabled={!m || cutOver} onChange={(e) => m && set(r.name, { ...m, target: e.target.value })} />
                  </>
                ) : (
                  <span className="muted small">{r.reason ?? `${r.type} repositories hold no files of their own`}</span>
                )}
              </td>
              <td>
                {mappable(r) && (
                  <input
                    type="checkbox"
                    aria-label={`Create ${m?.target || r.name} in Trove`}
                    checked={!!m?.create}
                    disabled={!m || cutOver}
                    onChange={(e) => m && set(r.name, { ...m, create: e.target.checked })}
                  />
                )}
              </td>
            </tr>
          );
        })}
      </Table>
      {repos.length === 0 && <p className="muted">The source lists no repositories.</p>}
      <ErrorMessage error={error} />
      {saved && <Notice tone="success">Mapping saved. Mapped repositories are read-only in Trove until the cut-over.</Notice>}
      {!cutOver && (
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save mapping'}
          </button>
        </div>
      )}
    </form>
  );
}

function EditSource({ source, onDone }: { source: MirrorSource; onDone(saved: boolean): void }) {
  const [baseUrl, setBaseUrl] = useState(source.base_url);
  const [username, setUsername] = useState(source.username);
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  return (
    <form
      className="card grid-form"
      aria-label="Edit source"
      onSubmit={async (e) => {
        e.preventDefault();
        const body: Record<string, string> = { base_url: baseUrl.trim(), username };
        if (password) body.password = password;
        if (await run(() => patch(`/api/mirror/sources/${enc(source.id)}`, body))) onDone(true);
      }}
    >
      <Field label="Nexus URL" required type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
      <Field label="User name" required autoComplete="off" value={username} onChange={(e) => setUsername(e.target.value)} />
      <Field label="New password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} hint="Leave empty to keep the stored one." />
      <ErrorMessage error={error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Checking the connection…' : 'Check and save'}
        </button>
        <button type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The source's rule its target takes: an apt distribution, a maven2 version policy, a raw repository's redeploy rule. */
function ruleOf(r: MirrorRemoteRepo): string | undefined {
  if (r.distribution) return r.distribution;
  if (r.version_policy) return r.version_policy;
  if (r.format === 'raw' && r.redeploy !== undefined) return r.redeploy ? 'redeploy' : 'no redeploy';
  return undefined;
}

/** One source: its remote repositories and mapping, sync now, history, cut-over, edit and delete. */
export function SourcePage({ id, added }: { id: string; added: boolean }) {
  const source = useLoad(`mirror-source:${id}`, () => get<MirrorSource>(`/api/mirror/sources/${enc(id)}`));
  const syncs = usePaged<MirrorSync>(`/api/mirror/sources/${enc(id)}/syncs`);
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState(added ? 'Source added: the connection works.' : '');
  const { busy, error, run } = useAction();
  const s = source.state === 'ok' ? source.data : null;
  const cutOver = !!s && (s.state === 'cut_over' || !!s.cut_over || !!s.cut_over_at);

  return (
    <section>
      <AdminNav current="mirror" />
      <nav aria-label="Breadcrumb" className="crumbs">
        <a href={link('admin', 'mirror')}>Mirror</a> <span aria-hidden="true">/</span> {s?.name ?? id}
      </nav>
      <h1 tabIndex={-1}>{s?.name ?? 'Source'}</h1>
      {source.state === 'loading' && <Loading what="the source" />}
      {source.state === 'error' && <ErrorMessage error={source.error} onRetry={source.reload} />}
      {notice && <Notice tone="success">{notice}</Notice>}
      <ErrorMessage error={error} />
      {s && (
        <>
          {s.mirror_error && <Notice tone="warn">{s.mirror_error}</Notice>}
          {editing ? (
            <EditSource
              source={s}
              onDone={(saved) => {
                setEditing(false);
                if (saved) {
                  setNotice('Source saved: the connection works.');
                  source.reload();
                }
              }}
            />
          ) : (
            <div className="card">
              <dl className="facts">
                <dt>URL</dt>
                <dd>{s.base_url}</dd>
                <dt>User</dt>
                <dd>{s.username}</dd>
                <dt>State</dt>
                <dd>{cutOver ? 'cut over: read-only history' : s.syncing ? 'mirroring, a sync is running' : 'mirroring'}</dd>
              </dl>
              <div className="actions">
                {!cutOver && (
                  <button type="button" onClick={() => setEditing(true)}>
                    Edit
                  </button>
                )}
                {!cutOver && (
                  <button
                    type="button"
                    className="primary"
                    disabled={busy}
                    onClick={() =>
                      run(async () => {
                        const started = await post<MirrorSync | null>(`/api/mirror/sources/${enc(s.id)}/sync`);
                        if (started?.id) navigate(link('admin', 'mirror', 'syncs', started.id));
                        else {
                          setNotice('Sync started.');
                          syncs.reload();
                        }
                      })
                    }
                  >
                    Sync now
                  </button>
                )}
                <ConfirmButton
                  label="Delete source"
                  confirm={`Delete ${s.name}`}
                  onConfirm={async () => {
                    if (await run(() => del(`/api/mirror/sources/${enc(s.id)}`))) navigate(link('admin', 'mirror'));
                  }}
                />
              </div>
            </div>
          )}
          <h2>Repositories</h2>
          <MappingEditor source={s} cutOver={cutOver} onSaved={source.reload} />
          {!cutOver && (
            <div className="card">
              <h2>Cut over</h2>
              <p>
                Runs one last sync, then makes every mapped repository Trove's own: uploads are accepted here from then on, and the source is never synced again (it stays as read-only
                history). Point your clients at Trove first; this cannot be undone.
              </p>
              <ConfirmButton
                label="Cut over…"
                confirm="Final sync, then make the mapped repositories Trove's own"
                onConfirm={async () => {
                  await run(async () => {
                    const r = await post<{ sync?: MirrorSync } | null>(`/api/mirror/sources/${enc(s.id)}/cutover`);
                    setNotice('Cut-over started: a final sync runs, then the repositories become writable here.');
                    if (r?.sync?.id) navigate(link('admin', 'mirror', 'syncs', r.sync.id));
                    source.reload();
                    syncs.reload();
                  });
                }}
              />
            </div>
          )}
          <h2>Sync history</h2>
          <PagedList list={syncs} what="syncs" empty="No syncs yet.">
            {(items) => (
              <Table columns={['Started', 'State', 'Files', 'Failed', 'Finished']}>
                {items.map((y) => {
                  const t = syncTotals(y);
                  return (
                    <tr key={y.id}>
                      <td>
                        <a href={link('admin', 'mirror', 'syncs', y.id)}>
                          <Time iso={y.started_at} />
                        </a>
                      </td>
                      <td>
                        <span className={`state ${y.state === 'running' ? 'pending' : y.state === 'done' ? 'open' : 'failed'}`}>{y.state}</span>
                      </td>
                      <td>{t.fetched ?? '—'}</td>
                      <td>{t.failed ?? '—'}</td>
                      <td>
                        <Time iso={y.finished_at} empty="—" />
                      </td>
                    </tr>
                  );
                })}
              </Table>
            )}
          </PagedList>
        </>
      )}
    </section>
  );
}

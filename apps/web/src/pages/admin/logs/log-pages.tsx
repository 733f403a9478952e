import { useEffect, useState, type ReactNode } from 'react';
import { url } from '../../../api/client';
import type { AuditEntry, PublishLogEntry } from '../../../api/types';
import { formatDate, Time } from '../../../components/format';
import { PagedList } from '../../../components/paged-list';
import { Table } from '../../../components/table';
import { link, navigate } from '../../../router';
import { usePaged } from '../../../use-paged';
import { SessionCells } from '../../publishing/session-list';
import { AdminNav } from '../admin-nav';

interface FilterDef {
  name: string;
  label: string;
  hint?: string;
  options?: { value: string; label: string }[];
}

/** Filters kept in the address (`#/admin/audit?actor=root`), so a filtered view can be bookmarked and shared. */
function Filters({ page, defs, query }: { page: string; defs: FilterDef[]; query: URLSearchParams }) {
  const initial = () => Object.fromEntries(defs.map((d) => [d.name, query.get(d.name) ?? '']));
  const [values, setValues] = useState<Record<string, string>>(initial);
  const key = defs.map((d) => query.get(d.name) ?? '').join('\u0000');
  useEffect(() => setValues(initial()), [key]);
  const active = defs.some((d) => query.get(d.name));
  return (
    <form
      className="filters"
      role="search"
      aria-label="Filter"
      onSubmit={(e) => {
        e.preventDefault();
        navigate(link('admin', page, Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.trim()]))));
      }}
    >
      {defs.map((d) => (
        <div className="field" key={d.name}>
          <label htmlFor={`f-${d.name}`}>{d.label}</label>
          {d.options ? (
            <select id={`f-${d.name}`} value={values[d.name]} onChange={(e) => setValues({ ...values, [d.name]: e.target.value })}>
              <option value="">any</option>
              {d.options.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          ) : (
            <input id={`f-${d.name}`} value={values[d.name]} placeholder={d.hint} spellCheck={false} onChange={(e) => setValues({ ...values, [d.name]: e.target.value })} />
          )}
        </div>
      ))}
      <button type="submit">Filter</button>
      {active && (
        <a className="button" href={link('admin', page)}>
          Clear
        </a>
      )}
    </form>
  );
}

function LogPage({ current, title, lede, children }: { current: string; title: string; lede: ReactNode; children: ReactNode }) {
  return (
    <section>
      <AdminNav current={current} />
      <h1 tabIndex={-1}>{title}</h1>
      <p className="lede">{lede}</p>
      {children}
    </section>
  );
}

/** Details for people: `{keys: [a, b]}` reads `keys: a, b`. */
function detailText(d: Record<string, unknown>): string {
  return Object.entries(d)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
}

/** `GET /api/audit`, newest first, filtered server-side. The only page that shows client IP addresses. */
export function AuditPage({ query }: { query: URLSearchParams }) {
  const list = usePaged<AuditEntry>(url('/api/audit', { actor: query.get('actor'), action: query.get('action'), repo: query.get('repo') }));
  return (
    <LogPage current="audit" title="Audit log" lede="Who changed what, from which address: sign-ins, users, repositories, permissions, settings, tokens, trust policies and the signing key. Newest first.">
      <Filters
        page="audit"
        query={query}
        defs={[
          { name: 'actor', label: 'Actor', hint: 'user name' },
          { name: 'action', label: 'Action', hint: 'e.g. settings or repo.create' },
          { name: 'repo', label: 'Repository', hint: 'repository name' },
        ]}
      />
      <PagedList list={list} what="audit entries" empty="Nothing matches.">
        {(items) => (
          <Table columns={['When', 'Actor', 'Action', 'Target', 'Client IP', 'Details']}>
            {items.map((e) => (
              <tr key={e.id}>
                <td title={formatDate(e.at)}>
                  <Time iso={e.at} />
                </td>
                <td>{e.actor || <span className="muted">—</span>}</td>
                <td>
                  <code>{e.action}</code>
                </td>
                <td className="wrap-cell">{e.target || <span className="muted">—</span>}</td>
                <td>{e.ip || <span className="muted">—</span>}</td>
                <td className="wrap-cell small">{detailText(e.detail)}</td>
              </tr>
            ))}
          </Table>
        )}
      </PagedList>
    </LogPage>
  );
}

/** `GET /api/publish/log`: every publish session, newest first, with the CI run's claims. */
export function PublishLogPage({ query }: { query: URLSearchParams }) {
  const list = usePaged<PublishLogEntry>(url('/api/publish/log', { actor: query.get('actor'), proof: query.get('proof'), repo: query.get('repo') }));
  return (
    <LogPage current="publish-log" title="Publish log" lede="Every publish session: who or which CI run, how it proved itself, and how it ended. Kept 30 days after it expires.">
      <Filters
        page="publish-log"
        query={query}
        defs={[
          { name: 'actor', label: 'Actor', hint: 'user name or CI identity' },
          {
            name: 'proof',
            label: 'Proof',
            options: [
              { value: 'device', label: 'device key' },
              { value: 'manual', label: 'by hand' },
              { value: 'oidc', label: 'CI' },
            ],
          },
          { name: 'repo', label: 'Repository', hint: 'repository name' },
        ]}
      />
      <PagedList list={list} what="log entries" empty="Nothing matches.">
        {(items) => (
          <Table columns={['Repository', 'Who', 'Proof', 'State', 'Started', 'CI run']}>
            {items.map((s) => (
              <tr key={s.id}>
                <SessionCells s={s} who={s.user ?? s.actor} />
                <td>
                  <Time iso={s.created_at} />
                </td>
                <td className="wrap-cell small">{s.claims ? detailText(s.claims) : <span className="muted">—</span>}</td>
              </tr>
            ))}
          </Table>
        )}
      </PagedList>
    </LogPage>
  );
}

import { useState } from 'react';
import { enc, get, getAll, patch, post } from '../../../api/client';
import type { Repo, Trust, TrustInput } from '../../../api/types';
import { Checkbox, Field } from '../../../components/field';
import { ErrorMessage, Loading } from '../../../components/states';
import { useAction } from '../../../use-action';
import { useLoad } from '../../../use-load';

interface ClaimRow {
  name: string;
  values: string;
}

const toRows = (claims: Record<string, string[]>): ClaimRow[] => {
  const rows = Object.entries(claims).map(([name, values]) => ({ name, values: values.join(', ') }));
  return rows.length ? rows : [{ name: 'repository', values: '' }];
};

/** Claim rows as the API's map; a row without a name is dropped, values split at commas. */
export function claimsOf(rows: ClaimRow[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of rows) {
    const name = r.name.trim();
    if (!name) continue;
    out[name] = r.values
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  }
  return out;
}

/** Create (no `trust`) or edit a CI trust policy: which tokens it accepts and which repositories they may publish to. */
export function TrustForm({ trust, baseUrl, onSaved, onCancel }: { trust?: Trust; baseUrl: string; onSaved(t: Trust): void; onCancel(): void }) {
  const repos = useLoad('repos', () => getAll<Repo>('/api/repos'));
  const [name, setName] = useState(trust?.name ?? '');
  const [issuer, setIssuer] = useState(trust?.issuer ?? 'https://token.actions.githubusercontent.com');
  const [audience, setAudience] = useState(trust?.audience ?? baseUrl);
  const [claims, setClaims] = useState<ClaimRow[]>(toRows(trust?.claims ?? {}));
  const [jwks, setJwks] = useState(trust?.jwks ?? 'https://token.actions.githubusercontent.com/.well-known/jwks');
  const [picked, setPicked] = useState<string[]>(trust?.repos ?? []);
  const [disabled, setDisabled] = useState(trust?.disabled ?? false);
  const { busy, error, run } = useAction();

  const setClaim = (i: number, change: Partial<ClaimRow>) => setClaims((rows) => rows.map((r, j) => (j === i ? { ...r, ...change } : r)));

  return (
    <form
      className="card stack-form"
      aria-label={trust ? `Edit ${trust.name}` : 'New trust policy'}
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          const body: TrustInput = { name: name.trim(), issuer: issuer.trim(), audience: audience.trim(), claims: claimsOf(claims), jwks: jwks.trim(), repos: picked, disabled };
          onSaved(trust ? await patch<Trust>(`/api/publish/trusts/${enc(trust.id)}`, body) : await post<Trust>('/api/publish/trusts', body));
        });
      }}
    >
      <div className="grid-form">
        <Field label="Name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} hint="Shown in the publish log beside each CI session." />
        <Field label="Issuer" required type="url" value={issuer} onChange={(e) => setIssuer(e.target.value)} hint="GitHub: https://token.actions.githubusercontent.com · GitLab: https://gitlab.com (or your instance)." />
        <Field label="Audience" required value={audience} onChange={(e) => setAudience(e.target.value)} hint="The aud the CI job asks for. The trove CLI asks for this server's base URL unless told otherwise." />
      </div>
      <fieldset>
        <legend>Claims that must match</legend>
        <p className="hint">Each claim must equal one of its allowed values (comma-separated). GitHub: repository, ref, environment. GitLab: project_path, ref, ref_protected.</p>
        {claims.map((row, i) => (
          <div className="claims-row" key={i}>
            <Field label={`Claim ${i + 1} name`} value={row.name} onChange={(e) => setClaim(i, { name: e.target.value })} spellCheck={false} />
            <Field label={`Claim ${i + 1} allowed values`} value={row.values} onChange={(e) => setClaim(i, { values: e.target.value })} spellCheck={false} placeholder="acme/widgets, acme/tools" />
            <button type="button" onClick={() => setClaims((rows) => rows.filter((_, j) => j !== i))} disabled={claims.length === 1} aria-label={`Remove claim ${i + 1}`}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" onClick={() => setClaims((rows) => [...rows, { name: '', values: '' }])}>
          Add a claim
        </button>
      </fieldset>
      <div className="field">
        <label htmlFor="trust-jwks">Key set (JWKS)</label>
        <textarea id="trust-jwks" rows={3} required spellCheck={false} value={jwks} onChange={(e) => setJwks(e.target.value)} aria-describedby="trust-jwks-hint" />
        <small id="trust-jwks-hint" className="hint">
          An https:// URL of the issuer's key set (fetched and cached by the server), or the JWKS document itself.
        </small>
      </div>
      <fieldset>
        <legend>Repositories it may publish to</legend>
        {repos.state === 'loading' && <Loading what="repositories" />}
        {repos.state === 'error' && <ErrorMessage error={repos.error} onRetry={repos.reload} />}
        {repos.state === 'ok' && (
          <div className="repo-picker">
            {repos.data.map((r) => (
              <Checkbox
                key={r.name}
                label={`${r.name} (${r.format})`}
                checked={picked.includes(r.name)}
                onChange={(e) => setPicked((p) => (e.target.checked ? [...p, r.name] : p.filter((x) => x !== r.name)))}
              />
            ))}
            {repos.data.length === 0 && <p className="muted">No repositories yet.</p>}
          </div>
        )}
      </fieldset>
      <Checkbox label="Disabled" checked={disabled} onChange={(e) => setDisabled(e.target.checked)} hint="A disabled policy accepts no tokens; disabling it ends its open sessions." />
      <ErrorMessage error={error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : trust ? 'Save policy' : 'Create policy'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

import { useState } from 'react';
import { enc, get, patch, post } from '../../api/client';
import type { Format, Repo } from '../../api/types';
import { Checkbox, Field } from '../../components/field';
import { ErrorMessage, Loading } from '../../components/states';
import { useLoad } from '../../use-load';
import { ConfigForm } from './config-form';
import { useAction } from '../../use-action';

/** Create (no `repo`) or edit a repository: format, config, anonymous read, overwrite. */
export function RepoForm({ repo, onSaved, onCancel }: { repo?: Repo; onSaved(r: Repo): void; onCancel?(): void }) {
  const formats = useLoad('formats', () => get<Format[]>('/api/formats'));
  const [name, setName] = useState(repo?.name ?? '');
  const [format, setFormat] = useState(repo?.format ?? '');
  const [config, setConfig] = useState<Record<string, unknown>>(repo?.config ?? {});
  const [anonymous, setAnonymous] = useState(repo?.anonymous_read ?? false);
  const [overwrite, setOverwrite] = useState<'allow' | 'deny'>(repo?.overwrite ?? 'deny');
  const { busy, error, run } = useAction();

  if (formats.state === 'loading') return <Loading what="formats" />;
  if (formats.state === 'error') return <ErrorMessage error={formats.error} onRetry={formats.reload} />;
  const fmt = formats.data.find((f) => f.name === (format || formats.data[0]?.name));
  const chosen = fmt?.name ?? '';

  return (
    <form
      className="stack-form"
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          const body = { config, anonymous_read: anonymous, ...(chosen === 'raw' ? { overwrite } : {}) };
          const saved = repo ? await patch<Repo>(`/api/repos/${enc(repo.name)}`, body) : await post<Repo>('/api/repos', { name: name.trim(), format: chosen, ...body });
          onSaved(saved);
        });
      }}
    >
      {!repo && (
        <Field
          label="Name"
          required
          pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,63}"
          value={name}
          onChange={(e) => setName(e.target.value)}
          hint="Used in URLs. Letters, digits, “.”, “_” and “-”; cannot be changed later."
        />
      )}
      <fieldset className="formats" disabled={!!repo}>
        <legend>Format{repo ? ' (fixed)' : ''}</legend>
        <div className="format-picker">
          {formats.data.filter((f) => !repo || f.name === repo.format).map((f) => (
            <label key={f.name} className={f.name === chosen ? 'chosen' : ''}>
              <input
                type="radio"
                name="format"
                value={f.name}
                checked={f.name === chosen}
                onChange={() => {
                  setFormat(f.name);
                  setConfig({ ...f.default_config });
                }}
              />
              <strong>{f.title}</strong>
              <span className="muted">{f.name}</span>
            </label>
          ))}
        </div>
      </fieldset>
      {fmt && <ConfigForm key={chosen} format={chosen} defaults={fmt.default_config} value={Object.keys(config).length ? config : fmt.default_config} onChange={setConfig} />}
      <fieldset>
        <legend>Access</legend>
        <Checkbox label="Anonymous read" checked={anonymous} onChange={(e) => setAnonymous(e.target.checked)} hint="Anyone can download without signing in. Uploads still need a publish session." />
        {chosen === 'raw' && (
          <div className="field">
            <label htmlFor="overwrite">Uploading a different file to an existing path</label>
            <select id="overwrite" value={overwrite} onChange={(e) => setOverwrite(e.target.value as 'allow' | 'deny')}>
              <option value="deny">Refuse it (409)</option>
              <option value="allow">Replace the file</option>
            </select>
          </div>
        )}
      </fieldset>
      <ErrorMessage error={error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : repo ? 'Save changes' : 'Create repository'}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

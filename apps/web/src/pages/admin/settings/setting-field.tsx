import { useId, useState } from 'react';
import type { SettingItem, SettingValue } from '../../../api/types';
import { link } from '../../../router';

/** A draft entry: a new value, `null` (reset to default; for a secret: clear it), or absent (unchanged). */
export type Draft = Record<string, SettingValue | null>;

const SOURCE: Record<SettingItem['source'], string> = { default: 'default', db: 'saved', env: 'environment' };

const isSecretValue = (v: SettingItem['value']): v is { set: boolean } => !!v && typeof v === 'object' && !Array.isArray(v);

/** How a value reads in a text box: lists one entry a line. */
export function displayValue(item: SettingItem, v: SettingValue | { set: boolean }): string {
  if (isSecretValue(v)) return '';
  if (Array.isArray(v)) return v.join('\n');
  return String(v);
}

/** A list typed one entry a line (commas also split, as in the environment); blanks dropped. */
export const parseList = (s: string): string[] =>
  s
    .split(/[\n,]/)
    .map((x) => x.trim())
    .filter(Boolean);

/** Where a setting's value comes from, and the key itself (what the API and docs call it). */
function Head({ item, id, draft }: { item: SettingItem; id?: string; draft: SettingValue | null | undefined }) {
  return (
    <div className="setting-head">
      {id ? <label htmlFor={id}>{item.label}</label> : <span className="label">{item.label}</span>}
      <code>{item.key}</code>
      <span className={`source ${item.source}`} title="Where the value in effect comes from">
        {draft === null ? 'reset on save' : draft !== undefined ? 'changed' : SOURCE[item.source]}
      </span>
    </div>
  );
}

/**
 * One setting as a form control by its type. Environment-set keys are read-only and name their
 * variable; secrets show only whether they are set, with replace and clear; a saved value can
 * go back to its default. `error` is the server's message for this key.
 */
export function SettingField({ item, draft, error, onChange }: { item: SettingItem; draft: SettingValue | null | undefined; error?: string; onChange(v: SettingValue | null | undefined): void }) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errId = `${id}-err`;
  const described = [hintId, error ? errId : ''].filter(Boolean).join(' ');
  const [replacing, setReplacing] = useState(false);

  const note = (
    <>
      <small id={hintId} className="hint">
        {item.help}
      </small>
      {error && (
        <p id={errId} className="error-note" role="alert">
          {error}
        </p>
      )}
    </>
  );

  if (item.locked)
    return (
      <div className="setting" data-key={item.key}>
        <Head item={item} id={id} draft={undefined} />
        {item.secret ? (
          <p className="muted small">{isSecretValue(item.value) && item.value.set ? 'Set' : 'Not set'}</p>
        ) : item.type === 'bool' ? (
          <input id={id} type="checkbox" checked={item.value === true} disabled aria-describedby={described} />
        ) : (
          <input id={id} readOnly value={displayValue(item, item.value).replace(/\n/g, ', ')} aria-describedby={described} />
        )}
        <p className="locked-note">
          Set by the environment variable <code>{item.env}</code>: read-only here. Change the variable and restart to change it.
        </p>
        {note}
      </div>
    );

  if (item.read_only)
    return (
      <div className="setting" data-key={item.key}>
        <Head item={item} draft={undefined} />
        <p className="small">
          {item.secret && isSecretValue(item.value) ? (item.value.set ? 'Set' : 'Not set') : displayValue(item, item.value) || '—'} ·{' '}
          {item.key === 'signing.key' ? <a href={link('admin', 'signing-key')}>Change it on the signing key page</a> : 'changed elsewhere'}
        </p>
        {note}
      </div>
    );

  const canReset = item.source === 'db' && draft === undefined;
  const reset = canReset && (
    <button type="button" className="link" onClick={() => onChange(null)} aria-label={`Reset ${item.label} to its default`}>
      Reset to default ({item.secret ? 'empty' : displayValue(item, item.default).replace(/\n/g, ', ') || 'empty'})
    </button>
  );
  const undo = draft !== undefined && (
    <button
      type="button"
      className="link"
      onClick={() => {
        onChange(undefined);
        setReplacing(false);
      }}
    >
      Undo change
    </button>
  );

  if (item.secret) {
    const set = isSecretValue(item.value) && item.value.set;
    return (
      <div className="setting" data-key={item.key}>
        <Head item={item} id={replacing ? id : undefined} draft={draft} />
        <p className="small" data-testid={`secret-state-${item.key}`}>
          {draft === null ? 'Will be cleared on save.' : set ? 'Set (the value is never shown).' : 'Not set.'}
        </p>
        {replacing ? (
          <input
            id={id}
            type="password"
            // Revealed by "Replace": the keyboard lands where the new value goes.
            autoFocus
            autoComplete="new-password"
            aria-describedby={described}
            aria-invalid={!!error}
            value={typeof draft === 'string' ? draft : ''}
            onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
          />
        ) : null}
        <div className="row-actions">
          {!replacing && draft !== null && (
            <button type="button" onClick={() => setReplacing(true)}>
              {set ? 'Replace' : 'Set'} {item.label.toLowerCase()}
            </button>
          )}
          {set && draft === undefined && !replacing && (
            <button type="button" className="danger-outline" onClick={() => onChange(null)}>
              Clear {item.label.toLowerCase()}
            </button>
          )}
          {undo}
        </div>
        {note}
      </div>
    );
  }

  const shown: SettingValue = draft === undefined ? (item.value as SettingValue) : draft === null ? (item.default as SettingValue) : draft;
  let control;
  if (item.type === 'bool')
    control = (
      <div className="field check">
        <input id={id} type="checkbox" checked={shown === true} aria-describedby={described} onChange={(e) => onChange(e.target.checked === item.value ? undefined : e.target.checked)} />
        <span aria-hidden="true">{shown === true ? 'On' : 'Off'}</span>
      </div>
    );
  else if (item.options)
    control = (
      <select id={id} value={String(shown)} aria-describedby={described} aria-invalid={!!error} onChange={(e) => onChange(e.target.value === item.value ? undefined : e.target.value)}>
        {!item.options.includes(String(shown)) && <option value={String(shown)}>{String(shown)}</option>}
        {item.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  else if (item.type === 'list') {
    const text = typeof draft === 'string' ? draft : displayValue(item, shown);
    control = (
      <textarea
        id={id}
        rows={Math.min(8, Math.max(2, text.split('\n').length + 1))}
        aria-describedby={described}
        aria-invalid={!!error}
        value={text}
        placeholder="One entry a line"
        // Kept as typed while editing; turned into a list when saved.
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  else
    control = (
      <input
        id={id}
        type={item.type === 'int' ? 'number' : 'text'}
        min={item.type === 'int' ? 1 : undefined}
        step={item.type === 'int' ? 1 : undefined}
        inputMode={item.type === 'int' ? 'numeric' : undefined}
        placeholder={item.type === 'duration' ? 'e.g. 15m, 2h, 2160h' : undefined}
        spellCheck={false}
        aria-describedby={described}
        aria-invalid={!!error}
        value={String(shown)}
        onChange={(e) => {
          const raw = e.target.value;
          const v: SettingValue = item.type === 'int' && /^\d+$/.test(raw) ? Number(raw) : raw;
          onChange(v === item.value ? undefined : v);
        }}
      />
    );
  return (
    <div className="setting" data-key={item.key}>
      <Head item={item} id={id} draft={draft} />
      {control}
      {(reset || undo) && <div className="row-actions">{reset || undo}</div>}
      {item.type === 'duration' && <small className="hint">Units ms, s, m, h; no day unit (90 days is 2160h).</small>}
      {note}
    </div>
  );
}

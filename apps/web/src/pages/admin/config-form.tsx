import { useId, useState } from 'react';
import { CONFIG_HINTS } from './config-hints';

type Config = Record<string, unknown>;

const humanize = (key: string) => key.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());

/**
 * A repository's `config` as a form. `/api/formats` gives each format's default config; its
 * keys and value types shape the fields (text, number, on/off, comma-separated list). Nested
 * or unusual values, and formats without defaults, are edited as JSON.
 */
export function ConfigForm({ format, defaults, value, onChange }: { format: string; defaults: Config; value: Config; onChange(c: Config): void }) {
  const id = useId();
  const hints = CONFIG_HINTS[format] ?? {};
  const keys = [...new Set([...Object.keys(defaults), ...Object.keys(value), ...Object.keys(hints)])];
  const simple = keys.every((k) => {
    const v = k in value ? value[k] : defaults[k];
    return v === undefined || ['string', 'number', 'boolean'].includes(typeof v) || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
  });
  const [asJson, setAsJson] = useState(!simple);
  const [text, setText] = useState(JSON.stringify(value, null, 2));
  const [jsonError, setJsonError] = useState('');

  if (!keys.length && !asJson)
    return (
      <fieldset className="config">
        <legend>Format settings</legend>
        <p className="muted">This format has no per-repository settings.</p>
      </fieldset>
    );

  const set = (k: string, v: unknown) => {
    const next = { ...value, [k]: v };
    // Optional keys are left out rather than sent empty (the schemas refuse empty strings).
    if (hints[k]?.optional && (v === '' || v === undefined)) delete next[k];
    onChange(next);
  };
  return (
    <fieldset className="config">
      <legend>Format settings</legend>
      {asJson ? (
        <div className="field">
          <label htmlFor={`${id}-json`}>Config (JSON object)</label>
          <textarea
            id={`${id}-json`}
            rows={Math.min(14, Math.max(4, text.split('\n').length + 1))}
            spellCheck={false}
            value={text}
            aria-invalid={!!jsonError}
            aria-describedby={`${id}-json-err`}
            onChange={(e) => {
              setText(e.target.value);
              try {
                const parsed: unknown = JSON.parse(e.target.value || '{}');
                if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('must be a JSON object');
                setJsonError('');
                onChange(parsed as Config);
              } catch (err) {
                setJsonError(`Not valid yet: ${(err as Error).message}`);
              }
            }}
          />
          <small id={`${id}-json-err`} className={jsonError ? 'hint bad' : 'hint'}>
            {jsonError || 'An empty object uses the format’s defaults.'}
          </small>
        </div>
      ) : (
        keys.map((k) => {
          const d = defaults[k];
          const v = k in value ? value[k] : d;
          const fid = `${id}-${k}`;
          const hint = hints[k];
          if (hint?.choices)
            return (
              <div className="field" key={k}>
                <label htmlFor={fid}>{humanize(k)}</label>
                <select id={fid} value={String(v ?? '')} onChange={(e) => set(k, e.target.value)} aria-describedby={`${fid}-hint`}>
                  {hint.choices.map((c) => (
                    <option key={c.value} value={c.value}>
                      {c.label}
                    </option>
                  ))}
                </select>
                <small id={`${fid}-hint`} className="hint">
                  {hint.help}
                </small>
              </div>
            );
          if (typeof d === 'boolean' || typeof v === 'boolean')
            return (
              <div className="field check" key={k}>
                <input id={fid} type="checkbox" checked={!!v} onChange={(e) => set(k, e.target.checked)} />
                <label htmlFor={fid}>{humanize(k)}</label>
              </div>
            );
          const list = Array.isArray(d) || Array.isArray(v);
          const help = (
            <small id={`${fid}-hint`} className="hint">
              {hint?.help ? `${hint.help} ` : ''}
              {list ? 'Comma-separated. ' : ''}
              {d !== undefined && (
                <>
                  Default: <code>{JSON.stringify(d)}</code>
                </>
              )}
            </small>
          );
          return (
            <div className="field" key={k}>
              <label htmlFor={fid}>{humanize(k)}</label>
              {list ? (
                <ListInput id={fid} value={(v as string[] | undefined) ?? []} onChange={(x) => set(k, x)} />
              ) : (
                <input
                  id={fid}
                  type={typeof d === 'number' ? 'number' : 'text'}
                  value={String(v ?? '')}
                  onChange={(e) => set(k, typeof d === 'number' ? Number(e.target.value) : e.target.value)}
                  aria-describedby={`${fid}-hint`}
                />
              )}
              {help}
            </div>
          );
        })
      )}
      <button
        type="button"
        className="link"
        onClick={() => {
          if (!asJson) setText(JSON.stringify(value, null, 2));
          setAsJson(!asJson);
        }}
        disabled={asJson && !simple}
      >
        {asJson ? 'Edit as a form' : 'Edit as JSON'}
      </button>
    </fieldset>
  );
}

/** A list typed as comma-separated text: the text is kept as typed (so "amd64, " can go on), the list is sent. */
function ListInput({ id, value, onChange }: { id: string; value: string[]; onChange(v: string[]): void }) {
  const [text, setText] = useState(value.join(', '));
  return (
    <input
      id={id}
      value={text}
      aria-describedby={`${id}-hint`}
      onChange={(e) => {
        setText(e.target.value);
        onChange(
          e.target.value
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean),
        );
      }}
    />
  );
}

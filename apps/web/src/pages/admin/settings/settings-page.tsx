import { useState } from 'react';
import { ApiError, get, requestWithStatus } from '../../../api/client';
import type { SettingsAnswer, SettingsGroup, SettingValue, StorageMove } from '../../../api/types';
import { ErrorMessage, Loading, Notice } from '../../../components/states';
import { link, navigate } from '../../../router';
import { useAction } from '../../../use-action';
import { useLoad } from '../../../use-load';
import { AdminNav } from '../admin-nav';
import { parseList, SettingField, type Draft } from './setting-field';
import { ConnectionTest, StorageStatus } from './storage-status';

/** The PATCH body of a draft: list text becomes a list; `null` stays (reset, or clear a secret). */
function patchBody(group: SettingsGroup, draft: Draft): Record<string, SettingValue | null> {
  const out: Record<string, SettingValue | null> = {};
  for (const [key, v] of Object.entries(draft)) {
    const item = group.settings.find((s) => s.key === key);
    out[key] = item?.type === 'list' && typeof v === 'string' ? parseList(v) : v;
  }
  return out;
}

function GroupForm({ group, onSaved }: { group: SettingsGroup; onSaved(answer: SettingsAnswer): void }) {
  const [draft, setDraft] = useState<Draft>({});
  const [fields, setFields] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState('');
  const [saves, setSaves] = useState(0);
  const { busy, error, setError, run } = useAction();
  const changed = Object.keys(draft).length;

  const save = () =>
    run(async () => {
      setFields({});
      setSaved('');
      try {
        const r = await requestWithStatus<SettingsAnswer | { move: StorageMove }>('PATCH', '/api/settings', patchBody(group, draft));
        setDraft({});
        // A new storage location with files in the old one: the other keys are saved and the copy runs in the background.
        if (r.status === 202 && 'move' in r.data) {
          navigate(link('admin', 'storage', 'moves', r.data.move.id));
          return;
        }
        setSaved(`Saved ${changed} ${changed === 1 ? 'change' : 'changes'}. They apply now, without a restart.`);
        setSaves((n) => n + 1);
        onSaved(r.data as SettingsAnswer);
      } catch (e) {
        const body = e instanceof ApiError ? (e.body as { fields?: Record<string, string> } | null) : null;
        if (body?.fields) setFields(body.fields);
        throw e;
      }
    });

  return (
    <form
      className="card"
      aria-labelledby={`group-${group.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2 id={`group-${group.name}`}>{group.label}</h2>
      {/* Keyed by the saves: a new store with nothing to move takes over at once, and "Current store" must say so. */}
      {group.name === 'storage' && <StorageStatus key={saves} />}
      {group.settings.map((item) => (
        <SettingField
          key={item.key}
          item={item}
          draft={draft[item.key]}
          error={fields[item.key]}
          onChange={(v) => {
            setSaved('');
            setError('');
            setDraft((d) => {
              const n = { ...d };
              if (v === undefined) delete n[item.key];
              else n[item.key] = v;
              return n;
            });
          }}
        />
      ))}
      <div className="actions sticky-actions">
        <button type="submit" className="primary" disabled={busy || !changed}>
          {busy ? 'Saving…' : changed ? `Save ${changed} ${changed === 1 ? 'change' : 'changes'}` : 'No changes'}
        </button>
        {changed > 0 && (
          <button type="button" onClick={() => (setDraft({}), setFields({}), setError(''))}>
            Discard
          </button>
        )}
        {/* Keyed by the draft: a result stays beside the form only while the form holds the values it tested. */}
        {group.name === 'storage' && <ConnectionTest key={JSON.stringify(draft)} path="/api/settings/storage/test" label="Test connection" body={() => patchBody(group, draft)} />}
        {group.name === 'sso' && <ConnectionTest key={JSON.stringify(draft)} path="/api/settings/oidc/test" label="Test discovery" body={() => patchBody(group, draft)} />}
      </div>
      <ErrorMessage error={error && Object.keys(fields).length ? `${error}: see the marked fields.` : error} />
      {saved && <Notice tone="success">{saved}</Notice>}
    </form>
  );
}

/** Every settings group of `GET /api/settings`, one at a time, each its own form. */
export function SettingsPage({ group }: { group: string | null }) {
  const [answer, setAnswer] = useState<SettingsAnswer | null>(null);
  const load = useLoad('settings', () => get<SettingsAnswer>('/api/settings'));
  const data = answer ?? (load.state === 'ok' ? load.data : null);
  const current = data?.groups.find((g) => g.name === group) ?? data?.groups[0];
  return (
    <section>
      <AdminNav current="settings" />
      <h1 tabIndex={-1}>Settings</h1>
      <p className="lede">Changes apply at once, without a restart. A value set by an environment variable wins over the one saved here and is read-only.</p>
      {load.state === 'loading' && <Loading what="settings" />}
      {load.state === 'error' && <ErrorMessage error={load.error} onRetry={load.reload} />}
      {data && current && (
        <>
          <nav className="tabs" aria-label="Settings groups">
            {data.groups.map((g) => (
              <a key={g.name} href={link('admin', 'settings', { group: g.name })} aria-current={g.name === current.name ? 'true' : undefined}>
                {g.label}
              </a>
            ))}
          </nav>
          <GroupForm key={current.name} group={current} onSaved={setAnswer} />
        </>
      )}
    </section>
  );
}

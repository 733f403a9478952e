import { eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { TroveDb } from '../db/open.js';
import { settings as settingsTable } from '../db/schema.js';
import { conflict, invalidSettings, badRequest } from '../errors.js';
import { BootError } from '../boot.js';
import { coerceEnv, coerceJson, sameValue } from './coerce.js';
import { parseDuration } from './duration.js';
import type { SecretBox } from './secret-box.js';
import { envName, type SettingDef, type SettingItem, type SettingSource, type SettingsGroup, type SettingValue } from './types.js';

interface Resolved {
  value: SettingValue;
  source: SettingSource;
}

export interface SettingsRegistryOptions {
  db: TroveDb;
  box: SecretBox;
  log: Logger;
  env?: Record<string, string | undefined>;
  dev?: boolean;
}

/** A pending PATCH, shown to hooks before anything is saved. `null` means reset to default. */
export interface PendingChange {
  changes: Map<string, SettingValue | null>;
  /** Effective value of any key as it will be after the change. */
  next: (key: string) => SettingValue;
}

/** What a hook may change about a PATCH's answer: keys it took over (not saved by the PATCH), the status and the body. */
export interface PatchOutcome {
  handled?: string[];
  status?: number;
  body?: unknown;
}

/**
 * The check phase of a PATCH: runs before anything is saved and before any PatchApplier; may throw a
 * TroveError to refuse it (auth's SSO discovery, Debian's key file). It must not act on the change
 * (start work, swap something live): a later check may still refuse the PATCH.
 */
export type PatchHook = (p: PendingChange) => Promise<void | PatchOutcome>;

/**
 * The apply phase, for a change that acts on something live (storage: the blob driver, a move). Runs
 * only once every PatchHook has accepted the change, in registration order. Its asynchronous part
 * prepares (probes, looks) and may still refuse by throwing; it must not act yet. It returns a commit
 * (see PatchCommit), or nothing when the change is not its business.
 */
export type PatchApplier = (p: PendingChange) => Promise<void | PatchCommit>;

/**
 * Runs in one synchronous step with the save, just before it: decides (may still refuse by throwing,
 * nothing is saved then) and names the keys it takes over. `onSaved` runs right after the values are
 * saved, in the same step, and is where the change acts: no request can run between the last check,
 * the save and the act. A commit that holds resources (a driver) releases them when it refuses.
 */
export type PatchCommit = () => void | { handled?: string[]; onSaved?: () => void | Omit<PatchOutcome, 'handled'> };
type PatchEffect = NonNullable<Exclude<ReturnType<PatchCommit>, void>['onSaved']>;

type Watcher = (changed: string[]) => void;

/**
 * Every setting of every package. Resolution: environment > database > default.
 * Values are cached; a PATCH updates the database and the cache together and then
 * tells watchers, so changes apply live without a restart.
 */
export class SettingsRegistry {
  private readonly groups: SettingsGroup[] = [];
  private readonly defs = new Map<string, { def: SettingDef; group: string }>();
  private readonly envValues = new Map<string, SettingValue>();
  private readonly dbValues = new Map<string, SettingValue>();
  private readonly watchers = new Map<string, Set<Watcher>>();
  private readonly hooks: PatchHook[] = [];
  private readonly appliers: PatchApplier[] = [];
  private loaded = false;
  private readonly env: Record<string, string | undefined>;
  readonly dev: boolean;

  constructor(private readonly opts: SettingsRegistryOptions) {
    this.env = opts.env ?? process.env;
    this.dev = opts.dev ?? false;
  }

  register(group: SettingsGroup): void {
    if (this.loaded) throw new Error(`settings group ${group.name} registered after load`);
    if (this.groups.some((g) => g.name === group.name)) throw new Error(`duplicate settings group ${group.name}`);
    for (const def of group.settings) {
      if (this.defs.has(def.key)) throw new Error(`duplicate setting ${def.key}`);
      this.defs.set(def.key, { def, group: group.name });
    }
    this.groups.push(group);
  }

  /**
   * Reads the environment and the database. An invalid environment value is fatal
   * (BootError naming the variable); an invalid or undecryptable database value is
   * logged and ignored, so a bad row can never keep the server from starting.
   */
  load(): void {
    const envErrors: string[] = [];
    for (const { def } of this.defs.values()) {
      const name = envName(def);
      const raw = name ? this.env[name] : undefined;
      if (raw === undefined) continue;
      const r = coerceEnv(def, raw);
      if (r.ok) this.envValues.set(def.key, r.value);
      else envErrors.push(`${name}: ${r.error}`);
    }
    if (envErrors.length) throw new BootError(envErrors.join('; '));

    for (const row of this.opts.db.select().from(settingsTable).all()) {
      const entry = this.defs.get(row.key);
      if (!entry) continue; // a setting a removed package left behind
      try {
        const json = entry.def.secret ? JSON.stringify(this.opts.box.open(row.key, row.value)) : row.value;
        const r = coerceJson(entry.def, JSON.parse(json));
        if (r.ok) this.dbValues.set(row.key, r.value);
        else this.opts.log.warn({ setting: row.key, reason: r.error }, 'ignoring invalid stored setting');
      } catch {
        this.opts.log.warn({ setting: row.key }, 'ignoring undecryptable or malformed stored setting');
      }
    }
    this.loaded = true;

    // Cross-key rules: a violation caused by the environment refuses start, one caused by stored values is logged.
    for (const g of this.groups) {
      const errs = g.validate?.((k) => this.get(k)) ?? {};
      for (const [key, msg] of Object.entries(errs)) {
        const def = this.defs.get(key)?.def;
        const viaEnv = g.settings.some((d) => this.envValues.has(d.key));
        if (viaEnv) envErrors.push(`${def ? envName(def) : key}: ${msg}`);
        else this.opts.log.warn({ setting: key, reason: msg }, 'stored settings are inconsistent');
      }
    }
    if (envErrors.length) throw new BootError(envErrors.join('; '));
  }

  /** `TR_*` variables that name no setting and no boot variable. */
  unknownEnv(bootVariables: string[]): string[] {
    const known = new Set([...bootVariables, ...[...this.defs.values()].map(({ def }) => envName(def)).filter(Boolean)]);
    return Object.keys(this.env).filter((k) => k.startsWith('TR_') && !known.has(k));
  }

  has(key: string): boolean {
    return this.defs.has(key);
  }

  private resolve(key: string): Resolved {
    const entry = this.defs.get(key);
    if (!entry) throw new Error(`unknown setting ${key}`);
    if (this.envValues.has(key)) return { value: this.envValues.get(key)!, source: 'env' };
    if (this.dbValues.has(key)) return { value: this.dbValues.get(key)!, source: 'db' };
    const d = entry.def;
    return { value: this.dev && d.devDefault !== undefined ? d.devDefault : d.default, source: 'default' };
  }

  get(key: string): SettingValue {
    return this.resolve(key).value;
  }
  string(key: string): string {
    return String(this.get(key));
  }
  bool(key: string): boolean {
    return this.get(key) === true;
  }
  int(key: string): number {
    return Number(this.get(key));
  }
  /** A duration setting in milliseconds. */
  ms(key: string): number {
    return parseDuration(String(this.get(key))) ?? 0;
  }
  list(key: string): string[] {
    const v = this.get(key);
    return Array.isArray(v) ? v : [];
  }
  source(key: string): SettingSource {
    return this.resolve(key).source;
  }

  /** Calls `fn` after any of `keys` changed its effective value. Returns an unsubscribe function. */
  watch(keys: string[], fn: Watcher): () => void {
    for (const k of keys) {
      if (!this.watchers.has(k)) this.watchers.set(k, new Set());
      this.watchers.get(k)!.add(fn);
    }
    return () => keys.forEach((k) => this.watchers.get(k)?.delete(fn));
  }

  /** A check of every PATCH (see PatchHook); all of them run before any applier. */
  addPatchHook(hook: PatchHook): void {
    this.hooks.push(hook);
  }

  /** A change's live effect, run only once every check has passed (see PatchApplier). */
  addPatchApplier(applier: PatchApplier): void {
    this.appliers.push(applier);
  }

  /** `GET /api/settings`. Secrets are reported only as `{set}`. */
  describe(): { groups: { name: string; label: string; settings: SettingItem[] }[] } {
    return {
      groups: this.groups.map((g) => ({
        name: g.name,
        label: g.label,
        settings: g.settings.map((def) => this.item(def, g.name)),
      })),
    };
  }

  private item(def: SettingDef, group: string): SettingItem {
    const r = this.resolve(def.key);
    const locked = r.source === 'env';
    const dflt = this.dev && def.devDefault !== undefined ? def.devDefault : def.default;
    const hide = (v: SettingValue) => (def.secret ? { set: v !== '' } : v);
    return {
      key: def.key,
      env: envName(def),
      group,
      label: def.label,
      help: def.help,
      type: def.type,
      options: def.options ?? null,
      secret: !!def.secret,
      value: hide(r.value),
      default: hide(dflt),
      source: r.source,
      locked,
      read_only: locked || def.patchable === false,
    };
  }

  /**
   * `PATCH /api/settings`. Everything is checked before anything is saved or changed: types and
   * bounds per key, env locks, group rules on the merged view, every check hook, then the appliers'
   * preparations. Only then, in one synchronous step, their commits, the save and their live effects:
   * a PATCH refused by any check (400 "nothing was saved") has changed nothing.
   */
  async patch(body: unknown): Promise<{ status: number; body: unknown }> {
    const pending = this.pending(body);
    let status = 200;
    let extra: unknown;
    const handled = new Set<string>();
    const take = (r: void | PatchOutcome) => {
      if (!r) return;
      r.handled?.forEach((k) => handled.add(k));
      if (r.status) status = r.status;
      if (r.body !== undefined) extra = r.body;
    };
    for (const hook of this.hooks) take(await hook(pending));
    const commits: PatchCommit[] = [];
    for (const applier of this.appliers) {
      const commit = await applier(pending);
      if (commit) commits.push(commit);
    }
    // From here to the return nothing awaits: no other request runs between the commits, the save and the effects.
    const effects: PatchEffect[] = [];
    for (const commit of commits) {
      const r = commit();
      if (!r) continue;
      take({ handled: r.handled });
      if (r.onSaved) effects.push(r.onSaved);
    }
    this.save(new Map([...pending.changes].filter(([k]) => !handled.has(k))));
    for (const effect of effects) take(effect());
    return { status, body: extra ?? this.describe() };
  }

  /**
   * A PATCH body checked under the same rules and merged over the current values, without
   * saving or running hooks (`POST /api/settings/storage/test`). Throws like `patch`.
   */
  preview(body: unknown): PendingChange {
    return this.pending(body);
  }

  private pending(body: unknown): PendingChange {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('body must be a JSON object of settings');
    // No prototype: a key named `__proto__` must land in the map like any other unknown key.
    const fields: Record<string, string> = Object.create(null);
    const changes = new Map<string, SettingValue | null>();
    const lockedChanges: string[] = [];
    for (const [key, input] of Object.entries(body as Record<string, unknown>)) {
      const entry = this.defs.get(key);
      if (!entry) {
        fields[key] = 'unknown setting';
        continue;
      }
      const { def } = entry;
      if (def.patchable === false) {
        fields[key] = 'cannot be changed here';
        continue;
      }
      if (def.secret && input === '') continue; // "" keeps the stored secret
      if (input === null) {
        if (this.envValues.has(key)) lockedChanges.push(key);
        else changes.set(key, null);
        continue;
      }
      const r = coerceJson(def, input);
      if (!r.ok) {
        fields[key] = r.error;
        continue;
      }
      if (this.envValues.has(key)) {
        if (!sameValue(this.envValues.get(key), r.value)) lockedChanges.push(key);
        continue;
      }
      changes.set(key, r.value);
    }
    if (Object.keys(fields).length) throw invalidSettings('invalid settings', fields);
    if (lockedChanges.length) {
      throw conflict(`set by the environment and read-only: ${lockedChanges.map((k) => envName(this.defs.get(k)!.def)).join(', ')}`);
    }

    const next = (key: string): SettingValue => {
      if (changes.has(key) && !this.envValues.has(key)) {
        const v = changes.get(key);
        if (v !== null && v !== undefined) return v;
        const d = this.defs.get(key)!.def;
        return this.dev && d.devDefault !== undefined ? d.devDefault : d.default;
      }
      return this.get(key);
    };
    Object.assign(fields, this.secretsToReenter(changes, next));
    for (const g of this.groups) {
      if (!g.settings.some((d) => changes.has(d.key))) continue;
      Object.assign(fields, g.validate?.(next) ?? {});
    }
    if (Object.keys(fields).length) throw invalidSettings('invalid settings', fields);
    return { changes, next };
  }

  /** A stored secret (`SettingDef.sentTo`) whose destination this change moves, to a place that is not empty. */
  private secretsToReenter(changes: Map<string, SettingValue | null>, next: (key: string) => SettingValue): Record<string, string> {
    const fields: Record<string, string> = {};
    for (const { def } of this.defs.values()) {
      const to = def.sentTo;
      if (!to || !changes.has(to) || changes.has(def.key) || this.get(def.key) === '') continue;
      if (next(to) === '' || sameValue(next(to), this.get(to))) continue;
      if (this.envValues.has(def.key)) fields[to] = `${envName(def)} sets ${def.key}, which is sent to this address: change both in the environment`;
      else fields[def.key] = `enter it again: a stored secret is never sent to a changed ${to}`;
    }
    return fields;
  }

  /**
   * Stores values without the PATCH rules (used by owners of non-patchable keys such as
   * `signing.key`, and by hooks that take over keys). Validates types; encrypts secrets.
   */
  setInternal(values: Record<string, SettingValue | null>): void {
    const m = new Map<string, SettingValue | null>();
    for (const [key, v] of Object.entries(values)) {
      const entry = this.defs.get(key);
      if (!entry) throw new Error(`unknown setting ${key}`);
      if (v === null) m.set(key, null);
      else {
        const r = coerceJson(entry.def, v);
        if (!r.ok) throw new Error(`${key}: ${r.error}`);
        m.set(key, r.value);
      }
    }
    this.save(m);
  }

  private save(changes: Map<string, SettingValue | null>): void {
    if (!changes.size) return;
    const before = new Map([...changes.keys()].map((k) => [k, this.get(k)]));
    const now = new Date();
    this.opts.db.transaction((tx) => {
      for (const [key, v] of changes) {
        if (v === null) {
          tx.delete(settingsTable).where(eq(settingsTable.key, key)).run();
          continue;
        }
        const def = this.defs.get(key)!.def;
        const stored = def.secret ? this.opts.box.seal(key, v as string) : JSON.stringify(v);
        tx.insert(settingsTable)
          .values({ key, value: stored, updatedAt: now })
          .onConflictDoUpdate({ target: settingsTable.key, set: { value: stored, updatedAt: now } })
          .run();
      }
    });
    for (const [key, v] of changes) {
      if (v === null) this.dbValues.delete(key);
      else this.dbValues.set(key, v);
    }
    const changed = [...changes.keys()].filter((k) => !sameValue(before.get(k), this.get(k)));
    this.opts.log.info({ settings: changed }, 'settings changed'); // names only: values may be secrets
    const notified = new Set<Watcher>();
    for (const k of changed) {
      for (const w of this.watchers.get(k) ?? []) {
        if (notified.has(w)) continue;
        notified.add(w);
        try {
          w(changed);
        } catch (err) {
          this.opts.log.error({ err, settings: changed }, 'settings watcher failed');
        }
      }
    }
  }
}

import type { Hono } from 'hono';
import type { CredentialResolver } from '../access/credential.js';
import type { CoreContext } from '../context.js';
import type { MigrationSet } from '../db/open.js';
import type { TroveEnv } from '../http/env.js';
import type { SettingsGroup } from '../settings/types.js';
import { MODULE_NAME, type FormatDefinition } from './format.js';

/** What a subsystem module (core's API, auth, mirror) may use. Formats get the narrower `FormatContext`. */
export type ModuleContext = CoreContext;

/**
 * How callers are identified, supplied by at most one module (auth). Core applies the
 * rules; the module names its own URLs.
 */
export interface CredentialProvider {
  resolver: CredentialResolver;
  /** `/api` paths a setup-only session may reach (second-factor setup, sign-in, sign-out). */
  setupOnlyPaths?: RegExp[];
  /** `/api` paths a publish session token may reach (besides the format routes). */
  publishPaths?: RegExp[];
  /** `METHOD /api/path` routes whose body carries a fresh second factor, so a Basic password may change through them. */
  freshProofRoutes?: string[];
}

/** One running module: built by `create`, owning its state (timers, caches, limiters) in its closure. */
export interface ModuleInstance {
  /** Each mounted at `/api`. */
  apiRoutes?: Hono<TroveEnv>[];
  /** Installed as the server's credential provider; two modules supplying one is a boot error. */
  credentials?: CredentialProvider;
  /** Background work; run in module order after every module was created. */
  start?(): void | Promise<void>;
  /** Run in reverse module order at shutdown. */
  stop?(): void | Promise<void>;
}

export interface ModuleDefinition<I extends ModuleInstance = ModuleInstance> {
  kind: 'module';
  name: string;
  settings: SettingsGroup[];
  migrations: MigrationSet[];
  /** Modules that must be created and started before this one (stopped after it). */
  after: string[];
  create(ctx: ModuleContext): I | Promise<I>;
}

/** Anything the lifecycle runs: a subsystem module or a format. */
export type AnyModule = ModuleDefinition<any> | FormatDefinition<any, any>;

const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Declares a module; a malformed declaration fails here, at import, not at first request. */
export function defineModule<I extends ModuleInstance>(def: {
  name: string;
  settings?: SettingsGroup | SettingsGroup[];
  migrations?: MigrationSet | MigrationSet[];
  after?: string[];
  create(ctx: ModuleContext): I | Promise<I>;
}): ModuleDefinition<I> {
  if (!MODULE_NAME.test(def.name)) throw new Error(`module name "${def.name}" must match ${MODULE_NAME}`);
  if (typeof def.create !== 'function') throw new Error(`module ${def.name}: create() is required`);
  return { kind: 'module', name: def.name, settings: list(def.settings), migrations: list(def.migrations), after: def.after ?? [], create: def.create };
}

export const settingsOf = (m: AnyModule): SettingsGroup[] => (m.kind === 'format' ? list(m.settings) : m.settings);
export const migrationsOf = (m: AnyModule): MigrationSet[] => (m.kind === 'format' ? list(m.migrations) : m.migrations);

/**
 * Module order: as listed, except that a module naming others in `after` moves behind them.
 * Refuses duplicate names, unknown `after` names and cycles.
 */
export function orderModules(modules: AnyModule[]): AnyModule[] {
  const byName = new Map<string, AnyModule>();
  for (const m of modules) {
    if (byName.has(m.name)) throw new Error(`module ${m.name} registered twice`);
    byName.set(m.name, m);
  }
  const ordered: AnyModule[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (m: AnyModule) => {
    if (state.get(m.name) === 'done') return;
    if (state.get(m.name) === 'visiting') throw new Error(`module ${m.name}: "after" forms a cycle`);
    state.set(m.name, 'visiting');
    for (const dep of m.kind === 'module' ? m.after : []) {
      const d = byName.get(dep);
      if (!d) throw new Error(`module ${m.name} needs module ${dep}, which is not in the list`);
      visit(d);
    }
    state.set(m.name, 'done');
    ordered.push(m);
  };
  modules.forEach(visit);
  return ordered;
}

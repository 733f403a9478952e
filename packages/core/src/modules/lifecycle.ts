import type { Hono } from 'hono';
import { createCore, type Core, type CreateCoreOptions } from '../create-core.js';
import type { TroveEnv } from '../http/env.js';
import { openFormatRequest, receiveFormatUpload } from '../http/format-request.js';
import { orderModules, type AnyModule, type CredentialProvider, type ModuleInstance } from './contract.js';
import { withCore } from './core-module.js';
import type { FormatContext, FormatDefinition, FormatInstance } from './format.js';

export type RunningModule =
  | { kind: 'module'; name: string; instance: ModuleInstance }
  | { kind: 'format'; name: string; definition: FormatDefinition<any, any>; instance: FormatInstance };

/** A server's modules, created and started; `stop` ends them in reverse and closes the core. */
export interface RunningModules {
  core: Core;
  /** In start order, core's first. */
  modules: RunningModule[];
  /** Every module's and format's `/api` routes, in module order. */
  apiRoutes: Hono<TroveEnv>[];
  stop(): Promise<void>;
}

/** What a format sees of the core: the services formats use, and the shared opening step. */
export function formatContext(core: Core, name: string): FormatContext {
  const { db, settings, log, blobs, spool, repos, assets, access, audit, baseUrl } = core;
  return {
    name,
    db,
    settings,
    log,
    blobs,
    spool,
    repos,
    assets,
    access,
    audit,
    baseUrl,
    jobs: core.jobs,
    open: (c, mode) => openFormatRequest(c, access, name, mode),
    receive: (c, opts) => receiveFormatUpload(c, { spool, settings }, opts),
  };
}

/**
 * The one lifecycle, for the server and the test server alike: migrate (and load settings),
 * create every module in order, start them in order; `stop` runs in reverse. A failure
 * while creating or starting stops what already started and closes the core before rethrowing.
 */
export async function startModules(opts: CreateCoreOptions): Promise<RunningModules> {
  const order = orderModules(withCore(opts.modules));
  const core = await createCore({ ...opts, modules: order });
  const running: RunningModule[] = [];
  let started = 0;
  const stopStarted = async () => {
    for (const m of running.slice(0, started).reverse()) {
      try {
        await m.instance.stop?.();
      } catch (err) {
        core.log.error({ err, module: m.name }, 'module failed to stop');
      }
    }
    started = 0;
  };
  try {
    let provider: { from: string; value: CredentialProvider } | undefined;
    for (const m of order) {
      if (m.kind === 'format') {
        const instance = await m.create(formatContext(core, m.name));
        core.formats.attach(m.name, instance);
        running.push({ kind: 'format', name: m.name, definition: m, instance });
      } else {
        const instance = await m.create(core);
        if (instance.credentials) {
          if (provider) throw new Error(`modules ${provider.from} and ${m.name} both supply the credential provider`);
          provider = { from: m.name, value: instance.credentials };
        }
        running.push({ kind: 'module', name: m.name, instance });
      }
    }
    if (provider) {
      core.credentials = { setupOnlyPaths: [], publishPaths: [], freshProofRoutes: [], ...provider.value };
    }
    for (const m of running) {
      await m.instance.start?.();
      started++;
    }
  } catch (err) {
    await stopStarted();
    await core.close();
    throw err;
  }
  let stopped = false;
  return {
    core,
    modules: running,
    apiRoutes: running.flatMap((m) => (m.kind === 'format' ? (m.instance.apiRoutes ? [m.instance.apiRoutes] : []) : (m.instance.apiRoutes ?? []))),
    async stop() {
      if (stopped) return;
      stopped = true;
      // Jobs first: a job uses modules (the mirror imports through the formats), and one still running after
      // its format stopped would queue work nobody finishes (Debian's pool removals).
      await core.jobs.stop();
      await stopStarted();
      await core.close();
    },
  };
}

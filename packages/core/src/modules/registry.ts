import type { FormatDefinition, FormatInstance } from './format.js';

export interface FormatDescriptor {
  name: string;
  title: string;
  default_config: Record<string, unknown>;
  settings_group?: string;
}

/**
 * The formats a server offers: their definitions from the start (repositories validate
 * their config against them), their instances once the lifecycle created them.
 */
export class FormatRegistry {
  private readonly formats = new Map<string, FormatDefinition<any, any>>();
  private readonly instances = new Map<string, FormatInstance>();

  constructor(defs: FormatDefinition<any, any>[] = []) {
    defs.forEach((d) => this.add(d));
  }

  add(def: FormatDefinition<any, any>): void {
    if (this.formats.has(def.name)) throw new Error(`format ${def.name} registered twice`);
    this.formats.set(def.name, def);
  }
  get(name: string): FormatDefinition<any, any> | undefined {
    return this.formats.get(name);
  }
  all(): FormatDefinition<any, any>[] {
    return [...this.formats.values()];
  }
  /** Set by the lifecycle after `create`. */
  attach(name: string, instance: FormatInstance): void {
    if (!this.formats.has(name)) throw new Error(`format ${name} is not registered`);
    this.instances.set(name, instance);
  }
  /** The running instance of a format; undefined before the lifecycle created it. */
  instance<I extends FormatInstance = FormatInstance>(name: string): I | undefined {
    return this.instances.get(name) as I | undefined;
  }
  /** What `RepoService` needs to validate a repository's config, without the registry. */
  configOf = (name: string) => {
    const f = this.formats.get(name);
    return f ? { defaultConfig: f.defaultConfig as Record<string, unknown>, configSchema: f.configSchema } : undefined;
  };
  names(): string[] {
    return [...this.formats.keys()];
  }
  describe(): FormatDescriptor[] {
    return this.all().map((f) => ({
      name: f.name,
      title: f.title,
      default_config: f.defaultConfig,
      ...(f.settings ? { settings_group: f.settings.name } : {}),
    }));
  }
}

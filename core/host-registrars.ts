/**
 * The registrars a plugin is handed (`ctx.tools`, the argument of `registerTools`, …): each is scoped
 * to its plugin, so a plugin can only remove what it registered, and every add passes the registration
 * gate. Registrations made while starting up are audited as one record per plugin and kind; later ones
 * one record each, written with the others of their tick.
 */
import type { AuditLog } from "./audit.js";
import type { CommandRegistrar, ProviderRegistrar, SkillRegistrar, ToolRegistrar } from "./plugin-types.js";
import type { CommandEntry, Kind, ProviderEntry, Registry, Rejection, SkillEntry, ToolEntry } from "./registry.js";
import type { ToolSources } from "./tool-sources.js";

export interface Registries {
  tools: Registry<ToolEntry>;
  commands: Registry<CommandEntry>;
  skills: Registry<SkillEntry>;
  providers: Registry<ProviderEntry>;
}

export interface RegistrarDeps {
  registries: Registries;
  sources: ToolSources;
  /** Plugins whose setup failed: they may not register anything more. */
  failed: ReadonlySet<string>;
  isReady(): boolean;
  audit: AuditLog;
  reject(plugin: string, what: Kind, r: Rejection): void;
}

export interface PluginRegistrars {
  tools: ToolRegistrar;
  commands: CommandRegistrar;
  skills: SkillRegistrar;
  providers: ProviderRegistrar;
}

export function createRegistrars(deps: RegistrarDeps): ((plugin: string) => PluginRegistrars) & { flushAudit(): void } {
  const pending = new Map<string, { plugin: string; kind: Kind; names: string[] }>();
  const made = new Map<string, PluginRegistrars>();

  function audited(kind: Kind, name: string, source: string): void {
    if (deps.isReady()) {
      // Queued: the tools of a server that connects (hundreds, from one tick) share one write.
      deps.audit.queue({ kind: "register", source, name, outcome: "ok", detail: { kind } });
      return;
    }
    const key = `${source}\0${kind}`;
    const entry = pending.get(key) ?? { plugin: source, kind, names: [] };
    entry.names.push(name);
    pending.set(key, entry);
  }

  function registrar<E extends ToolEntry | CommandEntry | SkillEntry | ProviderEntry>(plugin: string, registry: Registry<E>) {
    return Object.freeze({
      add(def: unknown): boolean {
        if (deps.failed.has(plugin)) return false;
        const r = registry.add(plugin, def);
        if (!("view" in r)) {
          deps.reject(plugin, registry.kind, r);
          return false;
        }
        audited(registry.kind, r.name, r.source);
        return true;
      },
      remove(name: string): boolean {
        return registry.remove(plugin, name);
      },
    });
  }

  const forPlugin = (plugin: string): PluginRegistrars => {
    let r = made.get(plugin);
    if (!r) {
      r = Object.freeze({
        tools: Object.freeze({
          ...registrar(plugin, deps.registries.tools),
          addSource(source: unknown): boolean {
            if (deps.failed.has(plugin)) return false;
            const refused = deps.sources.add(plugin, source);
            if (refused) deps.reject(plugin, "tool", { name: String((source as { name?: unknown } | null)?.name ?? "(unnamed)"), reason: refused });
            return !refused;
          },
          removeSource: (name: string) => deps.sources.remove(plugin, name),
        }) as ToolRegistrar,
        commands: registrar(plugin, deps.registries.commands) as CommandRegistrar,
        skills: registrar(plugin, deps.registries.skills) as SkillRegistrar,
        providers: registrar(plugin, deps.registries.providers) as ProviderRegistrar,
      });
      made.set(plugin, r);
    }
    return r;
  };
  return Object.assign(forPlugin, {
    flushAudit(): void {
      for (const e of pending.values()) {
        deps.audit.write({ kind: "register", source: e.plugin, name: e.plugin, outcome: "ok", detail: { kind: e.kind, count: e.names.length, names: e.names } });
      }
      pending.clear();
    },
  });
}

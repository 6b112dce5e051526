/**
 * The registrars a plugin is handed (`ctx.tools`, the argument of `registerTools`, …): each is scoped
 * to its plugin, so a plugin can only remove what it registered, and every add passes the registration
 * gate. Registrations made while starting up are audited as one record per plugin and kind; later ones
 * one record each, written with the others of their tick.
 */
import type { AuditLog } from "../gate/audit.js";
import type { BaseRegistrar } from "../registry/kind-entry.js";
import { KIND_NAMES, KINDS, pluralOf, type KindName, type KindRegistrars as PluginRegistrars, type Registries, type RegistrarOf } from "../registry/kinds.js";
import type { Entry, Registry, Rejection } from "../registry/registry.js";
import type { ToolSources } from "../registry/tool-sources.js";

export interface RegistrarDeps {
  registries: Registries;
  sources: ToolSources;
  /** Plugins whose setup failed: they may not register anything more. */
  failed: ReadonlySet<string>;
  isReady(): boolean;
  audit: AuditLog;
  reject(plugin: string, what: KindName, r: Rejection): void;
}

/** Each plugin's registrars, one per kind under its plural (`tools`, …, `agents`). */
export function createRegistrars(deps: RegistrarDeps): ((plugin: string) => PluginRegistrars) & { flushAudit(): void } {
  const pending = new Map<string, { plugin: string; kind: string; names: string[] }>();
  const made = new Map<string, PluginRegistrars>();

  function audited(kind: string, name: string, source: string): void {
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

  function base(plugin: string, kind: KindName, registry: Registry<Entry<unknown>>): BaseRegistrar<unknown> {
    return Object.freeze({
      add(def: unknown): boolean {
        if (deps.failed.has(plugin)) return false;
        const r = registry.add(plugin, def);
        if (!("view" in r)) {
          deps.reject(plugin, kind, r);
          return false;
        }
        audited(kind, r.name, r.source);
        return true;
      },
      remove(name: string): boolean {
        return registry.remove(plugin, name);
      },
    });
  }

  /** Kind `K`'s registrar for `plugin`: the base one, as the kind's entry shapes it. */
  function registrarOf<K extends KindName>(plugin: string, kind: K): RegistrarOf<K> {
    const spec = KINDS[kind];
    const reject = (p: string, _what: string, r: Rejection) => deps.reject(p, kind, r);
    return spec.registrar(base(plugin, kind, deps.registries[pluralOf(kind)]), plugin, { sources: deps.sources, failed: deps.failed, reject });
  }

  const forPlugin = (plugin: string): PluginRegistrars => {
    let r = made.get(plugin);
    if (!r) {
      const all = Object.fromEntries(KIND_NAMES.map((kind) => [pluralOf(kind), registrarOf(plugin, kind)]));
      // Object.fromEntries forgets which key holds which registrar; each is its kind's.
      r = Object.freeze(all) as PluginRegistrars;
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

/**
 * The host as plugins see it: one frozen object per host, shared by every plugin (so a plugin can key
 * its own per-host state on it, see `definePluginHooks`). It reads like the host, calls tools through
 * the same gate, and has no way to change the permission mode, install a permission asker, reach the
 * raw hooks, run a command as the user, or close the host.
 *
 * Nor to read another plugin's options (its API token, say): the config a plugin is shown lists the
 * plugins by name only (`pluginConfigView`). A plugin's own options are `ctx.options`.
 */
import type { AgentConfig } from "../config/config-schema.js";
import { AgentError } from "../../kit/errors.js";
import type { Host, OpenHostOptions, PluginHost, PreparedHost } from "../host-types.js";
import { copyListings } from "../registry/kinds.js";

const HOST_KEY = Symbol.for("agent-host.hostKey");

/** The object per-host plugin state is keyed on: the same for a host and its plugin view. */
export function hostKey(host: PluginHost): object {
  const key = (host as { [HOST_KEY]?: object })[HOST_KEY];
  if (!key) throw new TypeError("expected a host (createHost) or a plugin's ctx.host");
  return key;
}

const views = new WeakMap<Host, PluginHost>();

/** The view of `host` its plugins hold: for code that runs plugin-owned logic outside a hook (a plugin's CLI command). */
export function pluginView(host: Host): PluginHost {
  const view = views.get(host);
  if (!view) throw new TypeError("expected a host made by createHost");
  return view;
}

const namesOnly = new WeakMap<object, object>();

/** A `plugins` entry as plugins see it: its name. `[name, options]` is `name`; an inline object is `{ name }`. */
function entryName(entry: unknown): unknown {
  if (typeof entry === "string") return entry;
  if (Array.isArray(entry)) return String(entry[0]);
  if (entry && typeof entry === "object") return Object.freeze({ name: String((entry as { name?: unknown }).name) });
  return entry;
}

/**
 * The config as a plugin is shown it (`ctx.host.config`, `ctx.config`, the `config` hook's value, a
 * plugin CLI command's `prepare().config`): the same, frozen, except that `plugins` lists names only.
 * Options of a `[name, options]` entry are that plugin's alone (they may hold its API token), and an
 * inline plugin object is its code and state. Made once per config object.
 */
export function pluginConfigView<C = Readonly<AgentConfig>>(config: C): C {
  if (!config || typeof config !== "object") return config;
  const plugins = (config as { plugins?: unknown }).plugins;
  if (!Array.isArray(plugins)) return config;
  const hit = namesOnly.get(config);
  if (hit) return hit as C;
  const view = Object.freeze({ ...config, plugins: Object.freeze(plugins.map(entryName)) });
  namesOnly.set(config, view);
  namesOnly.set(view, view);
  return view as C;
}

/**
 * What a `config` handler handed `seen` (a `pluginConfigView`) returned, made ready to merge over the
 * real config: a `plugins` list that is the one it was shown (it spread the config it was handed) is
 * dropped, so that is not taken for an attempt to change the plugins (which no config hook may).
 */
export function fromPluginConfigView<T>(returned: T, seen: unknown): T {
  if (!returned || typeof returned !== "object" || Array.isArray(returned) || !Object.hasOwn(returned, "plugins")) return returned;
  const { plugins, ...rest } = returned as Record<string, unknown>;
  const shown = (seen as { plugins?: unknown } | null)?.plugins;
  if (plugins === shown || JSON.stringify(plugins) === JSON.stringify(shown)) return rest as T;
  return returned;
}

/**
 * A prepared host as a plugin's CLI command gets it (`ctx.prepare()`): its config shows plugins by name
 * only, and it cannot be opened (that would hand out the host itself, with no one to close it): a
 * command opens the host with `ctx.openHost()`, which gives the plugin view.
 */
export function pluginPreparedView(prepared: PreparedHost): PreparedHost {
  const hit = preparedViews.get(prepared);
  if (hit) return hit;
  const props = Object.getOwnPropertyDescriptors(prepared) as Record<string, PropertyDescriptor>;
  props.config = { get: () => pluginConfigView(prepared.config), enumerable: true };
  props.open = {
    value: async (_options?: OpenHostOptions): Promise<never> => {
      throw new AgentError("E_USAGE", "a plugin's command opens the host with ctx.openHost(), not prepare().open()");
    },
    enumerable: true,
  };
  const view = Object.freeze(Object.defineProperties({}, props)) as PreparedHost;
  preparedViews.set(prepared, view);
  return view;
}
const preparedViews = new WeakMap<PreparedHost, PreparedHost>();

export function pluginHostView(host: Host): PluginHost {
  const key = Object.freeze({});
  Object.defineProperty(host, HOST_KEY, { value: key });
  const tools = Object.freeze({ list: host.tools.list, get: host.tools.get, call: host.tools.call, load: host.tools.load });
  const commands = Object.freeze({
    list: host.commands.list,
    get: host.commands.get,
    // Never as the user: a plugin running `/mode bypass` gets a command that cannot change the mode.
    run: (line: string, options: { signal?: AbortSignal } = {}) => host.commands.run(line, { signal: options.signal }),
  });
  const view: PluginHost = {
    cwd: host.cwd,
    config: pluginConfigView(host.config),
    configFiles: host.configFiles,
    configOrigins: host.configOrigins,
    get sessionId() {
      return host.sessionId;
    },
    workspace: host.workspace,
    ...copyListings(host),
    tools,
    commands,
    get plugins() {
      return host.plugins;
    },
    get problems() {
      return [...host.problems];
    },
    get permissionMode() {
      return host.permissionMode;
    },
    get permissionGrants() {
      return host.permissionGrants;
    },
    on: (listener) => host.on(listener),
    emit: (event) => host.emit(event),
    session: host.session,
    run: (prompt, options) => host.run(prompt, options),
    runDetached: (options) => host.runDetached(options),
  };
  Object.defineProperty(view, HOST_KEY, { value: key });
  Object.freeze(view);
  views.set(host, view);
  return view;
}

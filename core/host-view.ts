/**
 * The host as plugins see it: one frozen object per host, shared by every plugin (so a plugin can key
 * its own per-host state on it, see `definePluginHooks`). It reads like the host, calls tools through
 * the same gate, and has no way to change the permission mode, install a permission asker, reach the
 * raw hooks, run a command as the user, or close the host.
 */
import type { Host, PluginHost } from "./host-types.js";

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
    config: host.config,
    configFiles: host.configFiles,
    configOrigins: host.configOrigins,
    get sessionId() {
      return host.sessionId;
    },
    workspace: host.workspace,
    tools,
    commands,
    skills: Object.freeze({ ...host.skills }),
    providers: Object.freeze({ ...host.providers }),
    get plugins() {
      return host.plugins;
    },
    get problems() {
      return [...host.problems];
    },
    get permissionMode() {
      return host.permissionMode;
    },
    on: (listener) => host.on(listener),
    emit: (event) => host.emit(event),
    session: host.session,
    run: (prompt, options) => host.run(prompt, options),
  };
  Object.defineProperty(view, HOST_KEY, { value: key });
  Object.freeze(view);
  views.set(host, view);
  return view;
}

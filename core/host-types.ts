/**
 * Public types of the host: what embedders get from `createHost`, and the narrower view plugins get.
 * Declared in contract.ts with the plugin types they refer to (issue 21: no import cycle, types included).
 */
export type { AgentSession, BuiltinPlugin, CreateHostOptions, DetachedRunOptions, DetachedRunResult, Host, OpenHostOptions, PluginHost, PluginPackageFormat, PreparedHost, RunOptions, RunResult } from "./contract.js";

/**
 * The plugin's config sections: `hooks`, in Claude Code's exact shape (so a `.claude/settings.json`
 * works unchanged), and `hooksConfig` for what Claude Code has no key for (`failClosed`). The schema
 * accepts whatever Claude Code accepts: handler types and events this plugin does not run are kept and
 * reported as warnings (a newer settings file must not stop the agent).
 */
import { z } from "../../core/index.js";
import { closestNames } from "../../kit/index.js";
import { EVENTS, NEVER_FIRED, isHookEvent, type HookEvent } from "./events.js";
import { compileMatcher, type Matcher } from "./matcher.js";

const HandlerSchema = z
  .looseObject({
    type: z.string().min(1),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** Seconds. */
    timeout: z.number().positive().optional(),
    /** agent-host's own: a hook that crashes or times out denies instead of letting the action through. */
    failClosed: z.boolean().optional(),
    async: z.boolean().optional(),
    if: z.string().min(1).optional(),
    shell: z.string().optional(),
    /** agent-host's own: variables set for this hook (a plugin's hooks get `CLAUDE_PLUGIN_ROOT` this way). */
    env: z.record(z.string(), z.string()).optional(),
  })
  .refine((h) => h.type !== "command" || typeof h.command === "string", { message: 'a hook of type "command" needs a "command"', path: ["command"] });

const GroupSchema = z.looseObject({ matcher: z.string().optional(), hooks: z.array(HandlerSchema) });

export const HooksSchema = z.record(z.string(), z.array(GroupSchema));
export const HooksConfigSchema = z.strictObject({
  /** Every command hook fails closed unless it says `failClosed: false`. */
  failClosed: z.boolean().optional(),
  /** No hook runs (Claude Code's `disableAllHooks`). */
  disabled: z.boolean().optional(),
});

export type HooksSection = z.infer<typeof HooksSchema>;
export type HooksConfig = z.infer<typeof HooksConfigSchema>;

declare module "../../core/index.js" {
  interface PluginConfigSections {
    hooks?: HooksSection;
    hooksConfig?: HooksConfig;
  }
}

/** One command to run, as configured. */
export interface Handler {
  /** `hooks.PreToolUse[0].hooks[1]`: how messages and doctor name it. */
  where: string;
  command: string;
  args?: string[];
  timeoutMs: number;
  failClosed: boolean;
  async: boolean;
  /** A permission rule a tool call must match (Claude Code's `if`). */
  if?: string;
  /** Set for this hook's process, over the config's `env`. */
  env?: Record<string, string>;
}

export interface Group {
  matcher: Matcher;
  handlers: Handler[];
}

export type HookPlan = Map<HookEvent, Group[]>;

/** Claude Code's default: a minute. */
export const DEFAULT_TIMEOUT_S = 60;

/** The host's bounds on the handlers that wait for hooks (config `pluginTimeouts`). */
export interface Bounds {
  callMs: number;
  shutdownMs: number;
}

/** The runnable hooks per event, and warnings about what will not run (or not as long as configured). */
export function planHooks(section: HooksSection | undefined, options: HooksConfig | undefined, bounds?: Bounds): { plan: HookPlan; warnings: string[] } {
  const plan: HookPlan = new Map();
  const warnings: string[] = [];
  if (options?.disabled) return { plan, warnings: section && Object.keys(section).length ? ["hooksConfig.disabled (disableAllHooks) is set: no hook runs"] : [] };
  for (const [event, groups] of Object.entries(section ?? {})) {
    if (!isHookEvent(event)) {
      if (event in NEVER_FIRED) warnings.push(`hooks.${event}: never fires in agent-host (${NEVER_FIRED[event]}); its hooks do not run`);
      else {
        const near = closestNames(event, [...Object.keys(EVENTS), ...Object.keys(NEVER_FIRED)]);
        warnings.push(`hooks.${event}: not a hook event${near.length ? `; did you mean "${near[0]}"?` : ""} Its hooks do not run`);
      }
      continue;
    }
    const list: Group[] = [];
    groups.forEach((g, gi) => {
      const matcher = compileMatcher(EVENTS[event] ? g.matcher : undefined);
      if (matcher.problem) warnings.push(`hooks.${event}[${gi}].matcher ${JSON.stringify(g.matcher)}: ${matcher.problem}; the group never matches`);
      const handlers: Handler[] = [];
      g.hooks.forEach((h, hi) => {
        const where = `hooks.${event}[${gi}].hooks[${hi}]`;
        if (h.type !== "command") {
          warnings.push(`${where}: hooks of type "${h.type}" do not run in agent-host (only "command")`);
          return;
        }
        if (h.shell && h.shell !== "bash") {
          warnings.push(`${where}: shell "${h.shell}" is not available; only bash`);
          return;
        }
        const failClosed = h.failClosed ?? options?.failClosed ?? false;
        const timeoutMs = Math.round((h.timeout ?? DEFAULT_TIMEOUT_S) * 1000);
        const bound = event === "SessionEnd" ? bounds?.shutdownMs : event === "Notification" || h.async ? undefined : bounds?.callMs;
        if (bound !== undefined && h.timeout !== undefined && timeoutMs > bound) {
          const key = event === "SessionEnd" ? "shutdownMs" : "callMs";
          warnings.push(`${where}: timeout ${h.timeout} s is longer than pluginTimeouts.${key} (${bound} ms), which bounds ${event} hooks; it is stopped at ${Math.round(bound / 100) / 10} s (raise pluginTimeouts.${key})`);
        }
        handlers.push({
          where,
          command: h.command!,
          ...(h.args ? { args: h.args } : {}),
          timeoutMs,
          failClosed,
          async: h.async === true || (h as { asyncRewake?: unknown }).asyncRewake === true,
          ...(h.if ? { if: h.if } : {}),
          ...(h.env ? { env: h.env } : {}),
        });
      });
      if (handlers.length) list.push({ matcher, handlers });
    });
    if (list.length) plan.set(event, list);
  }
  return { plan, warnings };
}

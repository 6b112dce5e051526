/**
 * Which file gave each part of the config (`agent config` shows them): the bookkeeping. Which files are
 * read, in what order, and what a folder's trust held back is the kernel's (core/config/config.ts).
 */
import { isPlainObject } from "../text/plain-object.js";

/** One part of the config and the file it came from (core's `ConfigOrigin` has this shape and more). */
export interface PartOrigin {
  key: string;
  file: string;
  value?: string;
}

/** The parts one file gave: permission rules one by one, `env` by variable, other keys (and sections' entries) by name. */
export function originsOf(file: string, core: Readonly<Record<string, unknown>>, extra: Readonly<Record<string, unknown>>): PartOrigin[] {
  const out: PartOrigin[] = [];
  for (const [key, value] of Object.entries(core)) {
    if (value === undefined) continue;
    if (key === "permissions" && isPlainObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (Array.isArray(v)) for (const rule of v) out.push({ key: `permissions.${k}`, file, value: String(rule) });
        else out.push({ key: `permissions.${k}`, file, value: String(v) });
      }
    } else if (key === "env" && isPlainObject(value)) for (const name of Object.keys(value)) out.push({ key: `env.${name}`, file });
    else out.push({ key, file });
  }
  for (const [key, value] of Object.entries(extra)) {
    if (isPlainObject(value) && Object.keys(value).length) for (const k of Object.keys(value)) out.push({ key: `${key}.${k}`, file });
    else out.push({ key, file });
  }
  return out;
}

/** What a file's config kept of its allow rules, mode and env (after a folder's trust narrowed it). */
export interface KeptParts {
  permissions?: { allow?: readonly string[]; mode?: string };
  env?: Readonly<Record<string, string>>;
}

/** `origins` less the allow rules, mode and env variables that `kept` no longer has. */
export function keptOrigins<O extends PartOrigin>(origins: readonly O[], kept: KeptParts): O[] {
  return origins.filter((o) => {
    if (o.key === "permissions.allow") return !!o.value && !!kept.permissions?.allow?.includes(o.value);
    if (o.key === "permissions.mode" && o.value) return kept.permissions?.mode === o.value;
    if (o.key.startsWith("env.")) return !!kept.env && Object.hasOwn(kept.env, o.key.slice(4));
    return true;
  });
}

/**
 * Input schemas: zod for local tools, JSON Schema for remote ones. Both end up as a validator that
 * returns either the (possibly coerced) input or messages naming the bad field.
 */
import { z } from "zod";
import { ConfigError } from "./errors.js";

/** A JSON Schema object describing a tool's input (`type: "object"`). */
export type JsonSchema = { type?: string; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

export type Validation = { ok: true; value: unknown } | { ok: false; issues: string[] };
export type Validator = (input: unknown) => Validation;

export function isZodSchema(v: unknown): v is z.ZodType {
  return typeof v === "object" && v !== null && typeof (v as { safeParse?: unknown }).safeParse === "function" && "_zod" in v;
}

export function zodToJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** A zod issue's path as config messages spell it: `permissions.allow[2]`; "" for the root. */
function fieldPath(p: readonly PropertyKey[]): string {
  let out = "";
  for (const k of p) out += typeof k === "number" ? `[${k}]` : out ? `.${String(k)}` : String(k);
  return out;
}

/** A zod error's issues as `key.path` and message; under `prefix` (a section's key) when given. */
export function zodIssues(error: z.ZodError, prefix = ""): { path: string; message: string }[] {
  return error.issues.map((i) => {
    const p = fieldPath(i.path);
    return { path: prefix && p ? `${prefix}.${p}` : prefix || p, message: i.message };
  });
}

/**
 * `value` as `schema` parses it (a plugin's options); a value it refuses is a `ConfigError` of `file`,
 * each issue under `prefix`. Something that is not a zod schema checks nothing: `value` as it is.
 */
export function parseOrConfigError(schema: unknown, value: unknown, file: string | undefined, prefix: string): unknown {
  if (typeof (schema as { safeParse?: unknown } | undefined)?.safeParse !== "function") return value;
  const parsed = (schema as z.ZodType).safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(file, zodIssues(parsed.error, prefix));
}

/** The first issue as one line, `path: message` (`(root)` for the whole value). */
export function firstIssue(error: z.ZodError, prefix = ""): string {
  const i = zodIssues(error, prefix)[0];
  return i ? `${i.path || "(root)"}: ${i.message}` : "invalid";
}

export function zodValidator(schema: z.ZodType): Validator {
  return (input) => {
    const r = schema.safeParse(input);
    if (r.success) return { ok: true, value: r.data };
    return { ok: false, issues: r.error.issues.map((i) => `${fieldPath(i.path) || "(input)"}: ${i.message}`) };
  };
}

type AjvLike = { compile(schema: object): ((data: unknown) => boolean) & { errors?: AjvError[] | null } };
type AjvError = { instancePath: string; message?: string; params?: Record<string, unknown>; keyword: string };

/**
 * The JSON Schema dialects validated: `draft-07` (ajv's default class, which reads draft-06 too) and
 * `2020-12` (ajv's 2020 class: `prefixItems`, `$dynamicRef`, `unevaluated*`, `dependentRequired`, …), and
 * 2019-09. A schema's own `$schema` decides; without one, the tool's `schemaDialect` (MCP tools: 2020-12).
 */
export type SchemaDialect = "draft-07" | "2019-09" | "2020-12";

export function schemaDialect(schema: JsonSchema, fallback: SchemaDialect = "draft-07"): SchemaDialect {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  if (/\/draft\/2020-12\//.test(declared)) return "2020-12";
  if (/\/draft\/2019-09\//.test(declared)) return "2019-09";
  if (/\/draft-0[4-7]\//.test(declared)) return "draft-07";
  return fallback;
}

const AJV_MODULES: Record<SchemaDialect, () => Promise<unknown>> = {
  "draft-07": () => import("ajv"),
  "2019-09": () => import("ajv/dist/2019.js"),
  "2020-12": () => import("ajv/dist/2020.js"),
};

/** One ajv per dialect for the process, loaded on first use (shared by every schema, even those compiled at the same time). */
const ajvInstances = new Map<SchemaDialect, Promise<AjvLike>>();
function getAjv(dialect: SchemaDialect): Promise<AjvLike> {
  let instance = ajvInstances.get(dialect);
  if (!instance) {
    instance = AJV_MODULES[dialect]().then((mod) => {
      const m = mod as unknown as { default: unknown };
      const Ajv = ((m.default as { default?: unknown }).default ?? m.default) as new (opts: object) => AjvLike;
      // Never `loadSchema`: a `$ref` to another document is not fetched (a schema ajv cannot resolve is not compiled).
      return new Ajv({ strict: false, allErrors: true, validateFormats: false, allowUnionTypes: true });
    }, (err: unknown) => {
      ajvInstances.delete(dialect);
      throw err;
    });
    ajvInstances.set(dialect, instance);
  }
  return instance;
}

function ajvMessage(e: AjvError): string {
  let where = e.instancePath ? e.instancePath.slice(1).replace(/\/(\d+)(?=\/|$)/g, "[$1]").replace(/\//g, ".") : "";
  if (e.keyword === "required" && e.params?.missingProperty) {
    const prop = String(e.params.missingProperty);
    return `${where ? `${where}.` : ""}${prop}: required property is missing`;
  }
  if (e.keyword === "additionalProperties" && e.params?.additionalProperty) {
    return `${where ? `${where}.` : ""}${String(e.params.additionalProperty)}: unknown property`;
  }
  if (!where) where = "(input)";
  return `${where}: ${e.message ?? e.keyword}`;
}

/**
 * A JSON Schema validator, compiled on first use (ajv is loaded lazily, and 300 MCP tools should not
 * cost 300 compilations at startup). A schema ajv cannot compile validates only "is an object":
 * the server still validates, and the call is not blocked by our parser's limits. `dialect`: the dialect
 * of a schema that declares no `$schema` (default draft-07).
 */
export function jsonSchemaValidator(schema: JsonSchema, dialect?: SchemaDialect): LazyValidator {
  // One compilation, however many calls arrive before it is done: concurrent first calls share it.
  let compiling: Promise<Validator> | undefined;
  const lazy: LazyValidator = () =>
    (compiling ??= compile().catch((err: unknown) => {
      compiling = undefined; // ajv failed to load: try again on the next call
      throw err;
    }));
  async function compile(): Promise<Validator> {
    const ajv = await getAjv(schemaDialect(schema, dialect));
    const { $schema: _ignored, ...rest } = schema;
    try {
      const fn = ajv.compile(rest);
      lazy.compiled = (input) => (fn(input) ? { ok: true, value: input } : { ok: false, issues: (fn.errors ?? []).map(ajvMessage) });
    } catch {
      lazy.compiled = (input) =>
        typeof input === "object" && input !== null && !Array.isArray(input)
          ? { ok: true, value: input }
          : { ok: false, issues: ["(input): expected an object"] };
    }
    return lazy.compiled;
  }
  return lazy;
}

/** A validator compiled on first use; `compiled` is set once it is, so callers can skip the await. */
export type LazyValidator = (() => Promise<Validator>) & { compiled?: Validator };

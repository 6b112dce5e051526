/**
 * A server's `elicitation/create` asked in the terminal (through `ctx.askUser`, the host's prompt):
 * - a form: the server's message, then a yes/no to answer it (no = decline), then each field on its
 *   own line, typed (string, number, integer, boolean, one of an enum, several of an enum) and checked
 *   against the field's schema (ajv: length, range, format, pattern); a bad value is said and asked
 *   again. Enter keeps a field's default, or skips an optional field. Ctrl-C cancels the form.
 * - a URL (`mode: "url"`): the URL is shown and, with the user's yes, opened in the browser.
 * The server receives only what the user typed (or confirmed), as its schema asks.
 */
import { isWebUrl, openBrowser } from "../oauth/browser.js";

type Value = string | number | boolean | string[];
export type ElicitResult = { action: "accept"; content?: Record<string, Value> } | { action: "decline" } | { action: "cancel" };

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: { const: string; title?: string }[];
  anyOf?: { const: string; title?: string }[];
  items?: { enum?: string[]; anyOf?: { const: string; title?: string }[] };
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  minItems?: number;
  maxItems?: number;
}

export interface ElicitParams {
  mode?: string;
  message?: string;
  url?: string;
  requestedSchema?: { properties?: Record<string, FieldSchema>; required?: string[] };
}

type Ask = (question: string) => Promise<string | null>;

type Compile = (schema: object) => ((data: unknown) => boolean) & { errors?: { message?: string }[] | null };
let compiler: Promise<Compile> | undefined;
/** ajv, loaded when a form is first asked (its default export differs between module systems). */
function getCompiler(): Promise<Compile> {
  return (compiler ??= import("ajv").then((mod) => {
    const m = mod as unknown as { default: { default?: unknown } };
    const Ajv = (m.default.default ?? m.default) as new (opts: object) => { compile: Compile };
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    return (schema: object) => ajv.compile(schema);
  }));
}

/** The choices of a single- or multi-select field (`enum`, titled `oneOf`/`anyOf`), or undefined. */
function choices(f: FieldSchema): { value: string; label: string }[] | undefined {
  const titled = f.oneOf ?? f.anyOf ?? f.items?.anyOf;
  if (titled?.length) return titled.map((c) => ({ value: String(c.const), label: c.title ?? String(c.const) }));
  const list = f.enum ?? f.items?.enum;
  if (list?.length) return list.map((v, i) => ({ value: String(v), label: f.enumNames?.[i] ?? String(v) }));
  return undefined;
}

function describe(name: string, f: FieldSchema, required: boolean): string {
  const type = f.type === "array" ? "several of" : choices(f) ? "one of" : (f.type ?? "string");
  const limits = [
    f.minLength !== undefined && `at least ${f.minLength} characters`,
    f.maxLength !== undefined && `at most ${f.maxLength} characters`,
    f.minimum !== undefined && `≥ ${f.minimum}`,
    f.maximum !== undefined && `≤ ${f.maximum}`,
    f.format && f.format,
  ].filter(Boolean);
  const head = `  ${f.title ?? name} (${[type, required ? "required" : "optional", ...limits].join(", ")})${f.description ? ` ${f.description}` : ""}`;
  const opts = choices(f);
  const list = opts ? `\n${opts.map((c, i) => `    ${i + 1}. ${c.label}${c.label !== c.value ? ` (${c.value})` : ""}`).join("\n")}` : "";
  const def = f.default !== undefined ? ` [${Array.isArray(f.default) ? f.default.join(", ") : String(f.default)}]` : "";
  return `${head}${list}\n  > ${def ? `${def.trim()} ` : ""}`;
}

/** The typed text as the field's value, or a reason it is not one. */
function parse(text: string, f: FieldSchema): { value: Value } | { error: string } {
  const opts = choices(f);
  const pick = (t: string) => {
    const n = Number(t);
    if (opts && Number.isInteger(n) && n >= 1 && n <= opts.length) return opts[n - 1].value;
    return opts?.find((c) => c.value === t || c.label.toLowerCase() === t.toLowerCase())?.value;
  };
  if (f.type === "array") {
    const parts = text.split(",").map((s) => s.trim()).filter(Boolean);
    const values = parts.map(pick);
    const bad = parts.filter((_, i) => values[i] === undefined);
    return bad.length ? { error: `not a choice: ${bad.join(", ")}` } : { value: values as string[] };
  }
  if (opts) {
    const v = pick(text);
    return v === undefined ? { error: `answer with a number from 1 to ${opts.length} or one of the values` } : { value: v };
  }
  if (f.type === "boolean") {
    if (/^(y|yes|true)$/i.test(text)) return { value: true };
    if (/^(n|no|false)$/i.test(text)) return { value: false };
    return { error: "answer y or n" };
  }
  if (f.type === "number" || f.type === "integer") {
    const n = Number(text);
    if (text === "" || !Number.isFinite(n)) return { error: "not a number" };
    if (f.type === "integer" && !Number.isInteger(n)) return { error: "not a whole number" };
    return { value: n };
  }
  return { value: text };
}

/** Checked against the field's own schema; a format is checked for the common ones. */
function check(compile: Compile, value: Value, f: FieldSchema): string | undefined {
  const { title: _t, description: _d, default: _def, enumNames: _n, ...schema } = f;
  const validate = compile(schema);
  if (!validate(value)) return (validate.errors ?? []).map((e) => e.message).join("; ");
  if (typeof value === "string" && f.format === "email" && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) return "not an email address";
  if (typeof value === "string" && f.format === "uri" && !URL.canParse(value)) return "not a URI";
  if (typeof value === "string" && f.format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return "not a date (YYYY-MM-DD)";
  return undefined;
}

export async function askForm(server: string, params: ElicitParams, ask: Ask): Promise<ElicitResult> {
  const message = String(params.message ?? "").trim();
  if (params.mode === "url") {
    const url = String(params.url ?? "");
    // Only a web page: a server cannot have us open file: or another scheme's handler.
    if (!isWebUrl(url)) return { action: "decline" };
    const yes = await ask(`? MCP server ${server} asks you to open a page${message ? `: ${message}` : ""}\n  ${url}\n  y open it in the browser   n no\n> `);
    if (yes === null) return { action: "cancel" };
    if (!/^y(es)?$/i.test(yes.trim())) return { action: "decline" };
    openBrowser(url);
    return { action: "accept" };
  }
  const props = params.requestedSchema?.properties ?? {};
  const required = new Set(params.requestedSchema?.required ?? []);
  const start = await ask(`? MCP server ${server} asks: ${message || "(no message)"}\n  ${Object.keys(props).length} field(s): ${Object.entries(props).map(([k, f]) => f.title ?? k).join(", ")}\n  y answer   n decline\n> `);
  if (start === null) return { action: "cancel" };
  if (!/^y(es)?$/i.test(start.trim())) return { action: "decline" };
  const compile = await getCompiler();
  const content: Record<string, Value> = {};
  for (const [name, f] of Object.entries(props)) {
    let note = "";
    for (;;) {
      const typed = await ask(`${note}${describe(name, f, required.has(name))}`);
      if (typed === null) return { action: "cancel" };
      const text = typed.trim();
      if (text === "") {
        if (f.default !== undefined) content[name] = f.default as Value;
        if (f.default !== undefined || !required.has(name)) break;
        note = "  (required)\n";
        continue;
      }
      const parsed = parse(text, f);
      const error = "error" in parsed ? parsed.error : check(compile, parsed.value, f);
      if (!error && "value" in parsed) {
        content[name] = parsed.value;
        break;
      }
      note = `  ${error}\n`;
    }
  }
  return { action: "accept", content };
}

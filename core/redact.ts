/**
 * Redaction for anything that leaves the process as a record (audit log, debug output).
 * Secrets are recognised by key name, by shape (bearer tokens, well-known key prefixes) and by
 * value (the current values of env vars named like *KEY*, *TOKEN*, *SECRET*, *PASSWORD*).
 */

const SECRET_KEY = /(pass(word|wd)?|secret|token|api[-_]?key|apikey|auth(orization)?|cookie|credential|private[-_]?key|session[-_]?id|access[-_]?key)/i;
const SECRET_ENV = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
const SHAPES: RegExp[] = [
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{12,}/g, // OpenAI, Anthropic (sk-ant-...), Stripe-like
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWT
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];

export const REDACTED = "[REDACTED]";

let envSecretsCache: { env: NodeJS.ProcessEnv; size: number; values: [string, string][] } | undefined;

/** Values of secret-looking env vars, longest first (so a value containing another is replaced whole). */
function envSecrets(): [string, string][] {
  const env = process.env;
  const size = Object.keys(env).length;
  if (envSecretsCache && envSecretsCache.env === env && envSecretsCache.size === size) return envSecretsCache.values;
  const values: [string, string][] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 6 && SECRET_ENV.test(name)) values.push([name, value]);
  }
  values.sort((a, b) => b[1].length - a[1].length);
  envSecretsCache = { env, size, values };
  return values;
}

export function redactString(s: string): string {
  let out = s;
  for (const [name, value] of envSecrets()) {
    if (out.includes(value)) out = out.split(value).join(`[REDACTED:${name}]`);
  }
  for (const re of SHAPES) out = out.replace(re, (m) => (m.startsWith("Bearer") || m.startsWith("Basic") ? `${m.split(/\s+/)[0]} ${REDACTED}` : REDACTED));
  return out;
}

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export interface SummarizeOptions {
  /** Longest string kept whole. */
  maxString?: number;
  /** Longest summary (JSON characters). */
  maxTotal?: number;
  maxDepth?: number;
  maxItems?: number;
}

/** A redacted, shortened copy of any value, safe to write to the audit log. */
export function summarize(value: unknown, opts: SummarizeOptions = {}): unknown {
  const maxString = opts.maxString ?? 200;
  const maxDepth = opts.maxDepth ?? 4;
  const maxItems = opts.maxItems ?? 20;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") {
      const r = redactString(v);
      return r.length > maxString ? `${r.slice(0, maxString)}…(+${r.length - maxString} chars)` : r;
    }
    if (v === null || typeof v !== "object") return typeof v === "function" || typeof v === "symbol" ? String(v) : v;
    if (depth >= maxDepth) return Array.isArray(v) ? `[array(${v.length})]` : "[object]";
    if (Array.isArray(v)) {
      const items = v.slice(0, maxItems).map((x) => walk(x, depth + 1));
      if (v.length > maxItems) items.push(`…(+${v.length - maxItems} items)`);
      return items;
    }
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const [k, x] of Object.entries(v)) {
      if (n++ >= maxItems) {
        out["…"] = `+${Object.keys(v).length - maxItems} keys`;
        break;
      }
      out[k] = isSecretKey(k) && x !== null && x !== undefined && x !== "" ? REDACTED : walk(x, depth + 1);
    }
    return out;
  };
  const result = walk(value, 0);
  const maxTotal = opts.maxTotal ?? 2000;
  const json = JSON.stringify(result) ?? "";
  if (json.length > maxTotal) return `${json.slice(0, maxTotal)}…(+${json.length - maxTotal} chars)`;
  return result;
}

/**
 * Redaction for anything that leaves the process as a record (audit log, debug output).
 * Secrets are recognised by key name, by shape (bearer tokens, well-known key prefixes) and by
 * value (the current values of env vars named like *KEY*, *TOKEN*, *SECRET*, *PASSWORD*).
 */

/** Words (or adjacent word pairs, joined) of a key name that mark its value as a secret. */
const SECRET_KEY_WORDS = new Set([
  "pass", "passwd", "password", "passphrase", "pwd", "secret", "secrets", "token", "apikey", "auth", "authorization",
  "cookie", "cookies", "credential", "credentials", "bearer", "jwt", "privatekey", "sessionid", "accesskey", "secretkey",
  "apikeys", "accesskeys",
]);
const SECRET_ENV = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
const SHAPES: RegExp[] = [
  /\bBearer\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  // Basic credentials are base64: require a capital or digit after the first character, so prose ("basic example") survives.
  /\bBasic\s+(?=[A-Za-z0-9+/]+[A-Z0-9+/=])[A-Za-z0-9+/]{8,}={0,2}/g,
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{12,}/g, // OpenAI, Anthropic (sk-ant-...), Stripe-like
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWT
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];

export const REDACTED = "[REDACTED]";
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi;

let envSecretsCache:
  | { env: NodeJS.ProcessEnv; size: number; seen: [string, string | undefined][]; values: [string, string][] }
  | undefined;

/** Values of secret-looking env vars, longest first (so a value containing another is replaced whole). */
function envSecrets(): [string, string][] {
  const env = process.env;
  const size = Object.keys(env).length;
  const c = envSecretsCache;
  // Valid while no variable was added or removed and no secret-named one changed (e.g. a plugin that logs in).
  if (c && c.env === env && c.size === size && c.seen.every(([name, value]) => env[name] === value)) return c.values;
  const seen: [string, string | undefined][] = [];
  const values: [string, string][] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!SECRET_ENV.test(name)) continue;
    seen.push([name, value]);
    if (value && value.length >= 6) values.push([name, value]);
  }
  values.sort((a, b) => b[1].length - a[1].length);
  envSecretsCache = { env, size, seen, values };
  return values;
}

export function redactString(s: string, secrets: [string, string][] = envSecrets()): string {
  let out = s;
  for (const [name, value] of secrets) {
    if (out.includes(value)) out = out.split(value).join(`[REDACTED:${name}]`);
  }
  for (const re of SHAPES) out = out.replace(re, (m) => (/^(bearer|basic)\s/i.test(m) ? `${m.split(/\s+/)[0]} ${REDACTED}` : REDACTED));
  // Passwords in URLs: postgres://user:secret@host keeps the user and host.
  out = out.replace(URL_PASSWORD, `$1${REDACTED}@`);
  return out;
}

/**
 * True for key names that hold secrets: `apiKey`, `x-api-key`, `token`, `access_token`, `password`,
 * `Authorization`, `Cookie`, `client_secret`, `AWS_SECRET_ACCESS_KEY`, ... Matched on whole words
 * (camelCase, snake_case and kebab-case are split), so `author`, `maxTokens` and `passthrough` are kept.
 */
export function isSecretKey(key: string): boolean {
  let known = secretKeyCache.get(key);
  if (known === undefined) {
    known = secretKeyWords(key);
    if (secretKeyCache.size < 2000) secretKeyCache.set(key, known);
  }
  return known;
}
const secretKeyCache = new Map<string, boolean>();

function secretKeyWords(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    if (SECRET_KEY_WORDS.has(words[i])) return true;
    if (i > 0 && SECRET_KEY_WORDS.has(words[i - 1] + words[i])) return true;
  }
  return false;
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
  let secrets: [string, string][] | undefined; // looked up once per summary: reading process.env is not free
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") {
      const r = redactString(v, (secrets ??= envSecrets()));
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

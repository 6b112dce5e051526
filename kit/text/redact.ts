/**
 * Redaction for anything that leaves the process as a record (audit log, debug output).
 * Secrets are recognised by key name, by shape (bearer tokens, well-known key prefixes, a URL's
 * password or token user, a URL's `?token=` / `&api_key=` / `sig=` parameters) and by value (the
 * current values of env vars named like *KEY*, *TOKEN*, *SECRET*, *PASSWORD*). The CLI's own stderr
 * lines (tool lines, notices, hook messages, errors) pass the same redaction as the audit log.
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
  // OpenAI, Anthropic (sk-ant-...), Stripe-like; a short one counts when it holds a digit (prose rarely does).
  /\b(sk|pk|rk)-(?:[A-Za-z0-9_-]{16,}|(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{6,})/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWT
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];
/**
 * A cheap test that every match of SHAPES and the URL patterns passes (each alternative is a fixed part of
 * one pattern; case-insensitive, so it may pass more): a string that fails it skips the ten replaces.
 * Keep it in step with SHAPES.
 */
const MAYBE_SHAPE =
  /bearer\s|basic\s|[spr]k-|gh[pousr]_|github_pat_|xox[abprs]-|akia|eyj|-----begin|:\/\/|[?&#;][\w.[\]-]{0,64}?(?:key|sig|token|secret|pass|pwd|auth|credential|session|sessid|cookie|bearer|jwt|hmac|otp)/i;
/** Env values shorter than this are not treated as secrets, and every shape is longer: shorter strings need no work. */
const MIN_SECRET_LENGTH = 6;

export const REDACTED = "[REDACTED]";
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi;
/** A URL's userinfo with no password (`https://<token>@host`): the user part alone. */
const URL_USER = /(\b[a-z][a-z0-9+.-]*:\/\/)([^\s:/@?#[\]]+)@/gi;
/** A user name that reads as a name (`git`, `deploy`, `jane.doe`), not as a token: kept. */
const PLAIN_USER = /^(?:[A-Za-z._-]{1,32}|[A-Za-z0-9._-]{1,7})$/;
/**
 * A query or fragment parameter (`?token=…`, `&api_key=…`, `#access_token=…`, `;sig=…`). Its value is
 * redacted when its name is a secret key (isSecretKey) or names a key, a signature or a session (`key`,
 * `sig`, `X-Amz-Signature`, `hmac`, `otp`, `jsessionid`): signed and tokened URLs are credentials.
 */
const URL_PARAM = /([?&#;])([\w.[\]-]{1,64})=([^&#\s"'<>`]+)/g;
const URL_PARAM_WORDS = new Set(["key", "keys", "sig", "signature", "hmac", "otp", "jsessionid", "phpsessid"]);

/**
 * How long the list of variable names is trusted. Listing `process.env` is the only way to see that a
 * variable was added, and it costs about 0.2 µs per variable (10-30 µs in a developer's shell): more than
 * the rest of the gate. So the names are listed again at most this often, while the values of the
 * secret-named variables already known are compared on every read (a changed value is caught at once).
 * A secret-named variable *added* while running is caught within this window, and at once after startup.
 */
const ENV_RELIST_MS = 50;

let envSecretsCache:
  | { env: NodeJS.ProcessEnv; names: string[]; listedAt: number; seen: [string, string | undefined][]; values: [string, string][] }
  | undefined;
/** Set while `redactBatch` runs: the env is read once for the whole batch. */
let batch: { secrets?: [string, string][] } | undefined;

/** Values plugins said are secret (an MCP server's env and headers), whatever key they appear under later. */
let declared: [string, string][] = [];

/** Redact `value` from everything written from now on, shown as `[REDACTED:<label>]`. Values under 6 characters are ignored. */
export function addSecret(value: string, label: string): void {
  if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH || declared.some(([, v]) => v === value)) return;
  declared = [...declared, [label, value]].sort((a, b) => b[1].length - a[1].length) as [string, string][];
  if (batch) batch.secrets = undefined;
}

/** Values of secret-looking env vars and declared secrets, longest first (so a value containing another is replaced whole). */
function envSecrets(): [string, string][] {
  const env = batch ? (batch.secrets ??= readEnvSecrets()) : readEnvSecrets();
  if (!declared.length) return env;
  return [...declared, ...env].sort((a, b) => b[1].length - a[1].length);
}

/** Run `fn` (which redacts several records written together) reading the env once. */
export function redactBatch<T>(fn: () => T): T {
  const outer = batch;
  batch = outer ?? {};
  try {
    return fn();
  } finally {
    batch = outer;
  }
}

/** List the variables again on the next read (the host calls it once plugins have set up: they may log in). */
export function forgetEnvSecrets(): void {
  envSecretsCache = undefined;
}

function readEnvSecrets(): [string, string][] {
  const env = process.env;
  const c = envSecretsCache;
  // Date.now, not performance.now: the first read of the `performance` global loads perf_hooks (~0.7 ms of start-up).
  const now = Date.now();
  // Valid while no secret-named variable changed value (e.g. a plugin that logs in) and, when the names
  // are listed again, the same variables exist (compared by name, not count: one removed and one added is
  // a change).
  const valid = c !== undefined && c.env === env && c.seen.every(([name, value]) => env[name] === value);
  if (valid && now - c.listedAt < ENV_RELIST_MS) return c.values;
  const names = Object.keys(env);
  if (valid && sameNames(c.names, names)) {
    c.listedAt = now;
    return c.values;
  }
  const seen: [string, string | undefined][] = [];
  const values: [string, string][] = [];
  for (const name of names) {
    if (!SECRET_ENV.test(name)) continue;
    const value = env[name];
    seen.push([name, value]);
    if (value && value.length >= MIN_SECRET_LENGTH) values.push([name, value]);
  }
  values.sort((a, b) => b[1].length - a[1].length);
  envSecretsCache = { env, names, listedAt: now, seen, values };
  return values;
}

function sameNames(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function redactString(s: string, secrets?: [string, string][]): string {
  if (s.length < MIN_SECRET_LENGTH) return s;
  let out = s;
  for (const [name, value] of secrets ?? envSecrets()) {
    if (out.includes(value)) out = out.split(value).join(`[REDACTED:${name}]`);
  }
  if (!MAYBE_SHAPE.test(out)) return out;
  for (const re of SHAPES) out = out.replace(re, (m) => (/^(bearer|basic)\s/i.test(m) ? `${m.split(/\s+/)[0]} ${REDACTED}` : REDACTED));
  // Passwords in URLs: postgres://user:secret@host keeps the user and host; a token as the user
  // (https://<token>@github.com) is redacted, a plain user name (ssh://git@host) kept.
  out = out.replace(URL_PASSWORD, `$1${REDACTED}@`);
  out = out.replace(URL_USER, (m, scheme: string, user: string) => (PLAIN_USER.test(user) || user.startsWith("[REDACTED") ? m : `${scheme}${REDACTED}@`));
  // Credentials in query strings and fragments: the name is kept, so the line still says what was sent.
  out = out.replace(URL_PARAM, (m, sep: string, name: string, value: string) =>
    value.startsWith("[REDACTED") || !isSecretParam(name) ? m : `${sep}${name}=${REDACTED}`,
  );
  return out;
}

/** A query parameter whose value is a credential: a secret key name, or one naming a key or signature. */
function isSecretParam(name: string): boolean {
  if (isSecretKey(name)) return true;
  return keyWords(name).some((w) => URL_PARAM_WORDS.has(w));
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

function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function secretKeyWords(key: string): boolean {
  const words = keyWords(key);
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
      const r = v.length < MIN_SECRET_LENGTH ? v : redactString(v, (secrets ??= envSecrets()));
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

/**
 * `JSON.stringify(summarize(value, opts))`, what a record holds. Fast path: a flat plain object of
 * primitives (or short lists of them) whose keys are not secret and whose strings are short and
 * unchanged by redaction is its own summary, so it is serialized as it is (no copy, no walk, no
 * second JSON pass for the size check).
 */
export function summaryJson(value: unknown, opts: SummarizeOptions = {}): string | undefined {
  if (isCleanFlat(value, opts.maxString ?? 200, opts.maxItems ?? 20)) {
    const json = JSON.stringify(value);
    if (json.length <= (opts.maxTotal ?? 2000)) return json;
  }
  return JSON.stringify(summarize(value, opts));
}

function isCleanFlat(value: unknown, maxString: number, maxItems: number): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(value);
  if (keys.length > maxItems) return false;
  const state: { secrets?: [string, string][] } = {};
  for (const k of keys) {
    if (isSecretKey(k)) return false;
    const v = (value as Record<string, unknown>)[k];
    if (Array.isArray(v)) {
      // A list of primitives (the names a registration record lists), as summarize() would keep it.
      if (v.length > maxItems) return false;
      for (let i = 0; i < v.length; i++) if (!isCleanPrimitive(v[i], maxString, state)) return false;
    } else if (!isCleanPrimitive(v, maxString, state)) return false;
  }
  return true;
}

function isCleanPrimitive(v: unknown, maxString: number, state: { secrets?: [string, string][] }): boolean {
  if (typeof v === "string") return v.length <= maxString && (v.length < MIN_SECRET_LENGTH || redactString(v, (state.secrets ??= envSecrets())) === v);
  return v === null || v === undefined || typeof v === "number" || typeof v === "boolean";
}

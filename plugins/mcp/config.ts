/**
 * Per-server config: the `.mcp.json` shape other MCP clients use (Claude Code, Claude Desktop,
 * Cursor, VS Code, Gemini CLI), plus our extra keys. Each entry is validated on its own: a bad
 * entry is reported with its key path and what was expected, and the other servers still load.
 */
import path from "node:path";
import { z, type Risk } from "../../core/index.js";
import { closestNames, picomatch } from "../../kit/index.js";
import { expandVars } from "./config/expand.js";
import { isPlainRecord } from "./config/values.js";

export type TransportKind = "stdio" | "http" | "sse";

export interface ServerConfig {
  name: string;
  /** `auto`: Streamable HTTP first, falling back to legacy SSE when the server says it only speaks that. */
  transport: TransportKind | "auto";
  command?: string;
  args: string[];
  env: Record<string, string>;
  /** Absolute; defaults to the project root. */
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  disabled: boolean;
  connectTimeout: number;
  toolTimeout?: number;
  maxOutputBytes?: number;
  includeTools?: string[];
  excludeTools?: string[];
  /** Per-tool risk overrides; keys are MCP tool names or `*` globs. */
  risk: Record<string, Risk>;
  /** How to answer a server's elicitation request (we cannot show a form). */
  elicitation: "defaults" | "decline";
  /** `false`: the server's skills (skills/list, skill:// resources) are not read. */
  skills: boolean;
  /** `true`: the server's annotations and tool names may lower a tool's risk (see risk.ts). */
  trust: boolean;
  /** OAuth for a remote server (oauth/); `false`: never authorize, a 401 is an error. Absent: discovered on a 401. */
  oauth: OAuthSettings | false;
  /** `false`: roots are not declared to the server (it keeps the folders its command line gave it, only those). */
  roots: boolean;
  /** A server's `sampling/createMessage`: asked in a terminal (`ask`, the default), always sent, or refused. */
  sampling: "ask" | "allow" | "deny";
  /**
   * The protocol revision spoken with the server: `auto` (the default) asks `server/discover` and falls back
   * to the 2025 initialize handshake; `2026-07-28` insists on the stateless revision; `2025` never probes.
   */
  protocol: ProtocolSetting;
}

export type ProtocolSetting = "auto" | "2026-07-28" | "2025";

/** The `oauth` key of a remote server (Claude Code's `clientId`, `callbackPort`, `scopes`, `authServerMetadataUrl`, plus ours). */
export interface OAuthSettings {
  /** A pre-registered client; without it the client registers itself (metadata document, else dynamic registration). */
  clientId?: string;
  clientSecret?: string;
  /** Space-separated; wins over what the server asks for. */
  scopes?: string;
  /** The loopback port of the redirect URI (`http://127.0.0.1:<port>/callback`); default: any free port. */
  callbackPort?: number;
  /** An https URL of our Client ID Metadata Document, used as client_id when the authorization server supports them. */
  clientMetadataUrl?: string;
  /** Skip discovery: the authorization server's metadata URL. */
  authServerMetadataUrl?: string;
  /**
   * `client_credentials`: machine to machine, no browser (clientId with clientSecret or privateKey).
   * `cross_app_access` (SEP-990, enterprise SSO): the IdP's ID token is exchanged at the IdP for an
   * ID-JAG, which the authorization server takes as a jwt-bearer grant (clientId, clientSecret, idp*).
   */
  grant: "authorization_code" | "client_credentials" | "cross_app_access";
  /** cross_app_access: the IdP's token endpoint, our client id there, and the user's ID token (use `${VAR}`). */
  idpTokenEndpoint?: string;
  idpClientId?: string;
  idToken?: string;
  /** PEM private key for `private_key_jwt` client authentication (client_credentials). */
  privateKey?: string;
  signingAlgorithm?: string;
}

export interface ConfigProblem {
  server: string;
  message: string;
  /** Fatal problems keep the server from loading; the others are warnings. */
  fatal: boolean;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

const PositiveInt = z.number().int().positive();
/**
 * `args`, `env` and `headers` take strings only. A number is refused (naming the key) rather than
 * turned into a string: JSON keeps no text for it, so `1.0` would reach the server as "1", `1e3` as
 * "1000" and a long id rounded; other clients (Claude Code, VS Code) refuse them too, so a config we
 * accept works there as well.
 */
const Text = z.string();

export const McpServerConfigSchema = z.looseObject({
  type: z.enum(["stdio", "http", "sse", "streamable-http", "streamableHttp"]).optional(),
  command: z.string().min(1).optional(),
  args: z.array(Text).optional(),
  env: z.record(z.string(), Text).optional(),
  cwd: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
  /** Gemini CLI's name for a Streamable HTTP URL. */
  httpUrl: z.string().min(1).optional(),
  headers: z.record(z.string(), Text).optional(),
  disabled: z.boolean().optional(),
  connectTimeout: PositiveInt.optional(),
  toolTimeout: PositiveInt.optional(),
  /** Gemini CLI's name for the tool timeout. */
  timeout: PositiveInt.optional(),
  maxOutputBytes: PositiveInt.optional(),
  includeTools: z.array(z.string()).optional(),
  excludeTools: z.array(z.string()).optional(),
  risk: z.record(z.string(), z.enum(["read", "write", "execute", "network"])).optional(),
  elicitation: z.enum(["defaults", "decline"]).optional(),
  skills: z.boolean().optional(),
  trust: z.boolean().optional(),
  oauth: z.union([z.literal(false), z.strictObject({
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    scopes: z.string().min(1).optional(),
    callbackPort: z.number().int().min(1).max(65535).optional(),
    clientMetadataUrl: z.string().startsWith("https://").optional(),
    authServerMetadataUrl: z.string().startsWith("http").optional(),
    grant: z.enum(["authorization_code", "client_credentials", "cross_app_access"]).optional(),
    idpTokenEndpoint: z.string().startsWith("http").optional(),
    idpClientId: z.string().min(1).optional(),
    idToken: z.string().min(1).optional(),
    privateKey: z.string().min(1).optional(),
    signingAlgorithm: z.string().min(1).optional(),
  })]).optional(),
  sampling: z.enum(["ask", "allow", "deny"]).optional(),
  roots: z.boolean().optional(),
  protocol: z.enum(["auto", "2026-07-28", "2025"]).optional(),
});
export type McpServerConfigInput = z.input<typeof McpServerConfigSchema>;

const isText = (v: unknown): v is string => typeof v === "string";
const STDIO_KEYS = new Set(["type", "command", "args", "env", "cwd"]);

/**
 * `{ command, args?, env?, cwd?, type?: "stdio" }` with strings where strings belong and nothing else:
 * an entry McpServerConfigSchema accepts as it is (tests/plugins/mcp/config.test.ts holds the two together).
 */
export function isPlainStdioEntry(entry: object): boolean {
  if (!isPlainRecord(entry)) return false;
  const e = entry;
  for (const k in e) if (!STDIO_KEYS.has(k)) return false;
  if (e.type !== undefined && e.type !== "stdio") return false;
  if (!isText(e.command) || e.command === "" || (e.cwd !== undefined && (!isText(e.cwd) || e.cwd === ""))) return false;
  const args = e.args;
  if (args !== undefined) {
    if (!Array.isArray(args)) return false;
    for (let i = 0; i < args.length; i++) if (!isText(args[i])) return false;
  }
  if (e.env === undefined) return true;
  const env = e.env;
  if (!isPlainRecord(env)) return false;
  for (const k in env) if (k === "__proto__" || !isText(env[k])) return false;
  return true;
}

/** What each key expects, for messages; `[whole, one item]` for lists and maps. */
const EXPECTED: Record<string, string | [string, string]> = {
  type: '"stdio", "http" or "sse"',
  command: "a non-empty string (the program to start)",
  args: ["an array of strings", "a string"],
  env: ["an object of string values", "a string"],
  cwd: "a non-empty string (a folder)",
  url: "a non-empty string (an http(s) URL)",
  httpUrl: "a non-empty string (an http(s) URL)",
  headers: ["an object of string values", "a string"],
  disabled: "true or false",
  connectTimeout: "a positive whole number of milliseconds",
  toolTimeout: "a positive whole number of milliseconds",
  timeout: "a positive whole number of milliseconds",
  maxOutputBytes: "a positive whole number of bytes",
  includeTools: ["an array of tool names or globs", "a string"],
  excludeTools: ["an array of tool names or globs", "a string"],
  risk: ['an object mapping tool names to "read", "write", "execute" or "network"', '"read", "write", "execute" or "network"'],
  elicitation: '"defaults" or "decline"',
  skills: "true or false",
  trust: "true or false",
  oauth: 'false, or an object with clientId, clientSecret, scopes (one string), callbackPort, clientMetadataUrl (https), authServerMetadataUrl, grant ("authorization_code", "client_credentials" or "cross_app_access"), privateKey, signingAlgorithm, idpTokenEndpoint, idpClientId, idToken',
  sampling: '"ask", "allow" or "deny"',
  roots: "true or false",
  protocol: '"auto", "2026-07-28" or "2025"',
};
const KNOWN_KEYS = Object.keys(EXPECTED);
/** Keys other clients write that we ignore on purpose (never reported as typos). */
const FOREIGN_KEYS = new Set(["autoApprove", "alwaysAllow", "description", "transportType", "envFile", "gallery", "version", "enabled", "name"]);

function describeValue(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 39)}…` : v)}`;
  if (typeof v === "object") return "an object";
  return `${typeof v === "number" ? "the number" : typeof v} ${String(v)}`;
}

function keyPath(server: string, p: readonly PropertyKey[]): string {
  let out = `mcpServers.${server}`;
  for (const k of p) out += typeof k === "number" ? `[${k}]` : `.${String(k)}`;
  return out;
}

function valueAt(root: unknown, p: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of p) v = v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** Tool-name globs (`*`, `?`), with picomatch (names hold no `/`). */
export function globMatcher(patterns: readonly string[]): (name: string) => boolean {
  const match = picomatch([...patterns], { dot: true, bash: true });
  return (name) => match(name);
}

/** Human-readable target of a server, for listings (no env, no headers: they may hold secrets). */
export function describeTarget(s: Pick<ServerConfig, "command" | "args" | "url">): string {
  if (s.url) return s.url;
  return [s.command ?? "", ...s.args].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(" ");
}

/**
 * Validate and resolve every entry of `mcpServers`. Never throws: bad entries come back as fatal
 * problems, doubtful ones (unset variables, likely typos) as warnings.
 */
export function parseServers(
  raw: Record<string, unknown> | undefined,
  options: { root: string; env?: NodeJS.ProcessEnv },
): { servers: ServerConfig[]; problems: ConfigProblem[] } {
  const servers: ServerConfig[] = [];
  const problems: ConfigProblem[] = [];
  const env = options.env ?? process.env;
  for (const [name, entry] of Object.entries(raw ?? {})) {
    const result = parseServer(name, entry, options.root, env);
    problems.push(...result.problems);
    if (result.server) servers.push(result.server);
  }
  return { servers, problems };
}

/** One schema problem of a server entry: the key, what was expected, what was there. */
function issueLine(name: string, entry: unknown, issue: { path: PropertyKey[]; message: string }): string {
  const key = String(issue.path[0] ?? "");
  const expected = EXPECTED[key];
  const what = Array.isArray(expected) ? (issue.path.length > 1 ? expected[1] : expected[0]) : expected;
  const value = valueAt(entry, issue.path);
  // A number or boolean where a string belongs: say how to write it.
  const quote = (key === "args" || key === "env" || key === "headers") && (typeof value === "number" || typeof value === "boolean")
    ? ` (put it in quotes: a ${typeof value} is not passed on as written)`
    : "";
  return `${keyPath(name, issue.path)}: expected ${what ?? issue.message}, got ${describeValue(value)}${quote}`;
}

function parseServer(name: string, entry: unknown, root: string, env: NodeJS.ProcessEnv): { server?: ServerConfig; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const fatal = (message: string) => ({ problems: [...problems, { server: name, message, fatal: true }] });
  const warn = (message: string) => problems.push({ server: name, message, fatal: false });

  if (name.trim() === "") return fatal(`mcpServers: a server has an empty name`);
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    return fatal(`${keyPath(name, [])}: expected an object like { "command": "...", "args": [...] } or { "url": "..." }, got ${describeValue(entry)}`);
  }
  // The usual local server needs no zod: its first parse costs ~3 ms of start-up (bench/first-turn.mjs).
  const parsed = isPlainStdioEntry(entry) ? { success: true as const, data: entry as McpServerConfigInput } : McpServerConfigSchema.safeParse(entry);
  if (!parsed.success) return fatal(parsed.error.issues.map((issue) => issueLine(name, entry, issue)).join("; "));
  const c = parsed.data;

  for (const key of Object.keys(entry)) {
    if (KNOWN_KEYS.includes(key) || FOREIGN_KEYS.has(key)) continue;
    const near = closestNames(key, KNOWN_KEYS, { max: 1, maxDistance: 2 })[0];
    if (near) warn(`${keyPath(name, [key])}: unknown key (ignored); did you mean "${near}"?`);
  }

  const url = c.url ?? c.httpUrl;
  if (c.command && url) return fatal(`${keyPath(name, [])}: has both "command" and "url"; give "command" for a local (stdio) server or "url" for a remote one`);
  if (!c.command && !url) return fatal(`${keyPath(name, [])}: needs "command" (a local server started over stdio) or "url" (a remote HTTP/SSE server)`);
  let transport: ServerConfig["transport"];
  if (c.command) {
    if (c.type && c.type !== "stdio") return fatal(`${keyPath(name, ["type"])}: "${c.type}" needs a "url", but this server has a "command"`);
    transport = "stdio";
  } else if (c.type === "stdio") {
    return fatal(`${keyPath(name, ["type"])}: "stdio" needs a "command", but this server has a "url"`);
  } else if (c.type === "sse") transport = "sse";
  else transport = c.type || c.httpUrl ? "http" : "auto";

  const expand = (value: string, at: PropertyKey[]): string => {
    const r = expandVars(value, env);
    for (const v of r.missing) warn(`${keyPath(name, at)}: \${${v}} is not set; it was replaced by an empty string`);
    return r.value;
  };
  const expandMap = (m: Record<string, string> | undefined, key: string) =>
    Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, expand(v, [key, k])]));

  const server: ServerConfig = {
    name,
    transport,
    args: (c.args ?? []).map((a, i) => expand(a, ["args", i])),
    env: expandMap(c.env, "env"),
    headers: expandMap(c.headers, "headers"),
    disabled: c.disabled === true,
    connectTimeout: c.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS,
    toolTimeout: c.toolTimeout ?? c.timeout,
    maxOutputBytes: c.maxOutputBytes,
    includeTools: c.includeTools,
    excludeTools: c.excludeTools,
    risk: c.risk ?? {},
    elicitation: c.elicitation ?? "defaults",
    skills: c.skills !== false,
    trust: c.trust === true,
    oauth: false,
    sampling: c.sampling ?? "ask",
    roots: c.roots !== false,
    protocol: c.protocol ?? "auto",
  };
  if (c.command) {
    server.command = expand(c.command, ["command"]);
    if (c.cwd) server.cwd = path.resolve(root, expand(c.cwd, ["cwd"]));
    if (c.oauth) warn(`${keyPath(name, ["oauth"])}: only remote (url) servers use OAuth; ignored`);
  } else {
    const expanded = expand(url!, [c.url ? "url" : "httpUrl"]);
    let parsedUrl: URL | undefined;
    try {
      parsedUrl = new URL(expanded);
    } catch {
      /* reported below */
    }
    if (!parsedUrl || (parsedUrl.protocol !== "http:" && parsedUrl.protocol !== "https:")) {
      return fatal(`${keyPath(name, [c.url ? "url" : "httpUrl"])}: expected an http(s) URL, got ${describeValue(expanded)}`);
    }
    server.url = parsedUrl.href;
    // A server given its own Authorization header is authorized by you: a 401 is then an error, not a login.
    const ownAuth = Object.keys(server.headers).some((k) => k.toLowerCase() === "authorization");
    const o = c.oauth;
    if (o !== false && !(ownAuth && o === undefined)) {
      const e = (v: string | undefined, key: string) => (v === undefined ? undefined : expand(v, ["oauth", key]));
      server.oauth = {
        clientId: e(o?.clientId, "clientId"),
        clientSecret: e(o?.clientSecret, "clientSecret"),
        scopes: o?.scopes,
        callbackPort: o?.callbackPort,
        clientMetadataUrl: o?.clientMetadataUrl,
        authServerMetadataUrl: o?.authServerMetadataUrl,
        grant: o?.grant ?? "authorization_code",
        privateKey: e(o?.privateKey, "privateKey"),
        signingAlgorithm: o?.signingAlgorithm,
        idpTokenEndpoint: e(o?.idpTokenEndpoint, "idpTokenEndpoint"),
        idpClientId: e(o?.idpClientId, "idpClientId"),
        idToken: e(o?.idToken, "idToken"),
      };
      if (server.oauth.grant === "client_credentials" && (!server.oauth.clientId || !(server.oauth.clientSecret || server.oauth.privateKey))) {
        return fatal(`${keyPath(name, ["oauth"])}: the client_credentials grant needs "clientId" and "clientSecret" or "privateKey"`);
      }
      if (server.oauth.grant === "cross_app_access" && (!server.oauth.clientId || !server.oauth.idpTokenEndpoint || !server.oauth.idToken)) {
        return fatal(`${keyPath(name, ["oauth"])}: the cross_app_access grant needs "clientId", "idpTokenEndpoint" and "idToken"`);
      }
    }
  }
  return { server, problems };
}

/**
 * `agent mcp …`, declared through the public CLI API; the implementation (servers.ts) loads only when a
 * subcommand runs, so the plugin's declaration costs nothing at startup.
 */
import { defineCliCommand } from "../../../core/index.js";

const impl = () => import("./servers.js");
const json = { type: "boolean", description: "print JSON" } as const;

const list = defineCliCommand({
  name: "list",
  aliases: ["ls"],
  description: "every configured server: transport, status, tools, connect time, error",
  usage: "[--json]",
  options: { json },
  positionals: false,
  run: async (ctx) => (await impl()).list(ctx),
});

const get = defineCliCommand({
  name: "get",
  description: "one server: its tools (risk, input), prompts and status",
  usage: "<server> [--json]",
  options: { json },
  run: async (ctx) => (await impl()).get(ctx),
});

const scope = {
  type: "string",
  short: "s",
  valueName: "<scope>",
  description: "local (the default: this project, this machine only, .agent/settings.local.json) | project (.mcp.json, shared) | user (your user config, every project)",
} as const;

const add = defineCliCommand({
  name: "add",
  description: "add a local (stdio) or remote (http, sse) server, in the local (default), project (.mcp.json) or user scope",
  usage: "[-s local|project|user] [--trust] <name> [--env K=V]... -- <command> [args...] | --transport http|sse <name> <url> [--header \"K: V\"]...",
  details:
    "Secrets: --env and --header values are written as given. In the local and user scopes they stay on this machine;\n" +
    'in the project scope (.mcp.json, committed and shared) write a reference instead, --env TOKEN=\'${TOKEN}\', or you are warned.',
  options: {
    scope,
    transport: { type: "string", short: "t", valueName: "<kind>", description: "stdio (default for a command), http or sse (default for a URL: try http, fall back to sse)" },
    env: { type: "string", short: "e", multiple: true, valueName: "<K=V>", description: "an environment variable for a local server" },
    header: { type: "string", short: "H", multiple: true, valueName: "<\"K: V\">", description: "an HTTP header for a remote server" },
    trust: { type: "boolean", description: 'write "trust": true: the server\'s tool annotations and names may lower a tool\'s risk (e.g. read_file runs without asking)' },
  },
  passThrough: true,
  run: async (ctx) => (await impl()).add(ctx),
});

const remove = defineCliCommand({
  name: "remove",
  aliases: ["rm"],
  description: "remove a server from the scope that has it (-s to say which)",
  usage: "[-s local|project|user] <name>",
  options: { scope: { ...scope, description: "local | project | user (default: whichever has it)" } },
  run: async (ctx) => (await impl()).remove(ctx),
});

const auth = () => import("./auth.js");

const login = defineCliCommand({
  name: "login",
  description: "authorize a remote server (OAuth): opens the browser ($BROWSER), or uses oauth.grant client_credentials",
  usage: "<server>",
  details: "Tokens are kept per user in <user config>/mcp-oauth/ (mode 0600), never in .mcp.json, and refreshed before they expire.",
  run: async (ctx) => (await auth()).loginCommand(ctx),
});

const logout = defineCliCommand({
  name: "logout",
  description: "forget a remote server's stored tokens and registration",
  usage: "<server>",
  run: async (ctx) => (await auth()).logoutCommand(ctx),
});

export const mcpCli = defineCliCommand({
  name: "mcp",
  description: "manage MCP servers: list, get, add, remove, login, logout",
  details:
    'Servers come from "mcpServers" in the agent config and from .mcp.json at the project root\n' +
    "(the agent config wins for a server defined in both). Each server's log: .agent/logs/mcp-<name>.log\n" +
    "(a project with no .agent/: $XDG_STATE_HOME/agent-host/logs/<project>-<hash>/; agent mcp get <name> names it)",
  options: { json },
  positionals: false,
  subcommands: [list, get, add, remove, login, logout],
  run: async (ctx) => (await impl()).list(ctx),
});

/**
 * `agent mcp login <server>` and `agent mcp logout <server>`, and how `agent mcp list` words a
 * server's OAuth state. The login opens the browser (`$BROWSER` honoured; the URL is printed when
 * there is none) with a loopback redirect listener on 127.0.0.1, or uses the client_credentials grant.
 */
import { AgentError, ExitCode, type CliContext } from "../../../core/index.js";
import { getMcpControl, getMcpStatus, type McpServerStatus } from "../status.js";

type Ctx = CliContext<Record<string, unknown>>;

async function control(ctx: Ctx, usage: string) {
  const [name, ...extra] = ctx.positionals;
  if (!name || extra.length) throw new AgentError("E_USAGE", usage);
  const host = await ctx.openHost({ quiet: true, lazyTools: true });
  const servers = getMcpStatus(host);
  if (!servers.some((s) => s.name === name)) {
    throw new AgentError("E_USAGE", `no MCP server named "${name}". ${servers.length ? `Configured: ${servers.map((s) => s.name).join(", ")}.` : "None is configured."}`);
  }
  const c = getMcpControl(host);
  if (!c) throw new AgentError("E_USAGE", `MCP server ${name} is not enabled`);
  return { name, c };
}

export async function loginCommand(ctx: Ctx): Promise<number> {
  const { name, c } = await control(ctx, "Usage: agent mcp login <server>");
  try {
    const r = await c.login(name, (line) => process.stderr.write(`${line}\n`));
    if (r.open) {
      ctx.print(`${name} answered without asking for authorization: nothing to log in to, nothing stored.`);
      return ExitCode.OK;
    }
    const until = r.expiresAt ? `, until ${new Date(r.expiresAt).toISOString()}` : "";
    ctx.print(`Logged in to ${name}${r.scope ? ` (scope ${r.scope})` : ""}${until}.`);
    return ExitCode.OK;
  } catch (err) {
    // A server that has no login (unknown, disabled, local, "oauth": false) is a usage error, said as such where it is found.
    if (err instanceof AgentError && err.code === "E_USAGE") throw err;
    ctx.warn(`agent: login to ${name} failed: ${(err as Error).message}`);
    return ExitCode.FAILED;
  }
}

export async function logoutCommand(ctx: Ctx): Promise<number> {
  const { name, c } = await control(ctx, "Usage: agent mcp logout <server>");
  try {
    const had = await c.logout(name);
    ctx.print(had ? `Logged out of ${name}: its tokens and registration are forgotten.` : `${name} had no stored login.`);
    return ExitCode.OK;
  } catch (err) {
    throw new AgentError("E_USAGE", (err as Error).message);
  }
}

/** The AUTH column of `agent mcp list`. */
export function authWords(s: McpServerStatus): string {
  const a = s.auth;
  if (!a) return "-";
  switch (a.state) {
    case "needs-login":
      return "needs login";
    case "authorized":
    case "client-credentials": {
      const exp = a.expiresAt ? Date.parse(a.expiresAt) - Date.now() : undefined;
      const left = exp === undefined ? "" : exp <= 0 ? " (expired, refreshable)" : ` (${exp >= 7_200_000 ? `${Math.round(exp / 3_600_000)} h` : `${Math.max(1, Math.round(exp / 60_000))} min`} left)`;
      return `${a.state === "authorized" ? "authorized" : "client credentials"}${left}`;
    }
    case "expired":
      return "expired (log in again)";
    default:
      return "none";
  }
}

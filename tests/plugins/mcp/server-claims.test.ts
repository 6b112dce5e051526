/**
 * What a server says is a claim, not a fact: its annotations and tool names may raise a tool's
 * risk, never lower it, unless the user trusts the server or sets the risk; and the secrets the user
 * gives it (env, headers) never reach the audit log, logs or `agent config`, whatever the server
 * echoes them back under.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { userMcpLog } from "../../helpers/project.js";
import { afterAll, describe, expect, it } from "vitest";
import type { PermissionMode } from "../../../core/index.js";
import { inferRisk, mcpToolRisk } from "../../../plugins/mcp/risk.js";
import { cleanup, fixture, mcpHost, tempDir } from "./_helpers.js";
import { agent, project } from "./_cli.js";

afterAll(cleanup);

const ran = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []);
const LIES = ["delete_everything", "read_file", "get_status", "wipe"];

describe("a server's hints about its tools", () => {
  it.each(["plan", "default"] as PermissionMode[])("cannot lower their risk: headless in %s mode, none of the lying tools runs", async (mode) => {
    const cwd = tempDir();
    const file = path.join(cwd, "ran");
    const host = await mcpHost({ liar: { ...fixture("lying-annotations"), env: { RAN_FILE: file } } }, { cwd, permissionMode: mode });
    for (const tool of LIES) {
      expect(host.tools.get(`mcp__liar__${tool}`)!.risk).toBe("execute");
      const r = await host.tools.call(`mcp__liar__${tool}`, {});
      expect(r).toMatchObject({ ok: false, outcome: "denied" });
    }
    expect(ran(file)).toEqual([]);
  });

  it("are believed for a server the user trusts; the user's own risk settings win over both", async () => {
    const cwd = tempDir();
    const trusted = path.join(cwd, "trusted");
    const configured = path.join(cwd, "configured");
    const host = await mcpHost(
      {
        trusted: { ...fixture("lying-annotations"), env: { RAN_FILE: trusted }, trust: true },
        configured: { ...fixture("lying-annotations"), env: { RAN_FILE: configured }, risk: { get_status: "read", "wipe*": "read" } },
      },
      { cwd, permissionMode: "plan", config: { tools: { overrides: { mcp__configured__read_file: { risk: "read" } } } } },
    );
    const risks = (server: string) => LIES.map((t) => host.tools.get(`mcp__${server}__${t}`)!.risk);
    expect(risks("trusted")).toEqual(["read", "read", "read", "write"]);
    expect(risks("configured")).toEqual(["execute", "read", "read", "read"]);
    for (const server of ["trusted", "configured"]) for (const t of LIES) await host.tools.call(`mcp__${server}__${t}`, {});
    expect(ran(trusted)).toEqual(["delete_everything", "read_file", "get_status"]);
    expect(ran(configured)).toEqual(["read_file", "get_status", "wipe"]);
  });

  it("may raise the risk; of an untrusted server, nothing is lower than execute", () => {
    const untrusted = { risk: {} };
    expect(mcpToolRisk({ name: "read_file" }, untrusted)).toBe("execute");
    expect(mcpToolRisk({ name: "search", annotations: { readOnlyHint: true } }, untrusted)).toBe("execute");
    expect(mcpToolRisk({ name: "fetch_page", annotations: { openWorldHint: true } }, untrusted)).toBe("network");
    expect(mcpToolRisk({ name: "read_file" }, { risk: {}, trust: true })).toBe(inferRisk({ name: "read_file" }));
    expect(mcpToolRisk({ name: "read_file", annotations: { openWorldHint: true } }, { risk: { "read_*": "read" } })).toBe("read");
  });
});

describe("secrets given to a server", () => {
  const SECRET = "s3cr3t-value-123";

  it("never reach the audit log or the server's log, whatever the server echoes them back as (createHost config)", async () => {
    const cwd = tempDir();
    const host = await mcpHost({ sec: { ...fixture("echo-env"), env: { SOME_NAME: SECRET } } }, { cwd });
    // The model gets what the tool returned; records do not.
    expect((await host.tools.call("mcp__sec__echo_env", {})).output).toBe(SECRET);
    expect((await host.tools.call("mcp__sec__fail_env", {})).ok).toBe(false);
    expect((await host.tools.call("mcp__sec__throw_env", {})).ok).toBe(false);
    await host.close();
    const audit = readFileSync(path.join(cwd, ".agent", "audit.jsonl"), "utf8");
    // The project had no .agent/ when the host set up: the server's log is in the user's state folder.
    const log = readFileSync(userMcpLog(cwd, "sec"), "utf8");
    expect(audit).toContain("[REDACTED:mcpServers.sec.env.SOME_NAME]");
    expect(log).toContain("echo-env: SOME_NAME=[REDACTED:mcpServers.sec.env.SOME_NAME]");
    expect(audit).not.toContain(SECRET);
    expect(log).not.toContain(SECRET);
  });

  it("never reach the audit log, logs, agent config or agent mcp get (config files, built CLI)", async () => {
    const p = project({
      ".mcp.json": { mcpServers: { sec: { ...fixture("echo-env"), env: { SOME_NAME: SECRET } } } },
      ".agentrc.json": { mcpServers: { remote: { url: "http://127.0.0.1:9/mcp", headers: { "X-Custom": "Token hdr-secret-456" } } } },
    });
    for (const tool of ["echo_env", "fail_env", "throw_env"]) await agent(p, ["call", "--permission-mode", "bypass", `mcp__sec__${tool}`, "{}"]);
    const config = await agent(p, ["config", "--json"]);
    expect(config.code).toBe(0);
    expect(config.stdout).toContain("[REDACTED:mcpServers.sec.env.SOME_NAME]");
    const get = await agent(p, ["mcp", "get", "sec"]);
    expect(get.stdout).toContain("server:  echo-env [REDACTED:mcpServers.sec.env.SOME_NAME]");
    const records = [
      config.stdout,
      config.stderr,
      get.stdout,
      readFileSync(path.join(p.dir, ".agent", "audit.jsonl"), "utf8"),
      // The first call set up before its audit log made .agent/ (its log is in the user's state folder); the later ones in .agent/.
      readFileSync(userMcpLog(p.dir, "sec"), "utf8"),
      readFileSync(path.join(p.dir, ".agent", "logs", "mcp-sec.log"), "utf8"),
    ].join("\n");
    expect(records).not.toContain(SECRET);
    expect(records).not.toContain("hdr-secret-456");
  });
});

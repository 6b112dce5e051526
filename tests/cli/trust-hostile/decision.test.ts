/**
 * Folder trust from outside (the hostile folders: ./fixture.ts): the decision. `agent trust` records every
 * part and a part added later is held back until trusted again; `agent untrust`; a trusted parent trusts its
 * subfolders, home and / never do; a repository cannot trust itself.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../helpers/project.js";
import { hostileFolders, write } from "./fixture.js";

const h = hostileFolders();
const { run, touch, jsWrite, esmWrite } = h;

describe("the decision: agent trust, changes after it, untrust, parents, home", () => {
  it("trusting records every part; a part added later is held back until trusted again", async () => {
    h.clear();
    const dir = tempDir("agent-decide-");
    h.common(dir, "decide");
    write(dir, ".claude/settings.json", { hooks: { SessionStart: [{ hooks: [{ type: "command", command: touch("first-hook") }] }] } });
    const t = await run(["trust"], dir);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toContain("Trusted");
    const file = path.join(h.configHome, "trusted-folders.json");
    expect(readFileSync(file, "utf8")).toContain(dir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).not.toContain("trusted-folders.json");
    const first = await run(["-p", "hi"], dir);
    expect(first.code, first.stderr).toBe(0);
    expect(h.markers()).toContain("first-hook");
    // A new hook and a new server after the decision: not loaded, headless, with the one line.
    write(dir, ".claude/settings.json", { hooks: { SessionStart: [{ hooks: [{ type: "command", command: touch("first-hook") }] }], Stop: [{ hooks: [{ type: "command", command: touch("added-hook") }] }] } });
    const mcp = JSON.parse(readFileSync(path.join(dir, ".mcp.json"), "utf8"));
    mcp.mcpServers.added = { command: "node", args: ["-e", jsWrite("added-server")] };
    write(dir, ".mcp.json", mcp);
    const second = await run(["-p", "hi"], dir);
    expect(second.code, second.stderr).toBe(0);
    await run(["tools"], dir);
    expect(h.markers()).not.toContain("added-hook");
    expect(h.markers()).not.toContain("added-server");
    expect(second.stderr).toMatch(/added to this folder since you trusted it.*hooks Stop/);
    expect((await run(["doctor"], dir)).stdout).toContain("trusted, with parts added since");
    // Trusted again, they load.
    expect((await run(["trust"], dir)).code).toBe(0);
    await run(["-p", "hi"], dir);
    await run(["tools"], dir);
    expect(h.markers()).toContain("added-hook");
    expect(h.markers()).toContain("added-server");
    // A changed code config file is a new part too.
    write(dir, "agent.config.mjs", `${esmWrite("code-v1")}\nexport default {};\n`);
    expect((await run(["trust"], dir)).code).toBe(0);
    expect(h.markers()).toContain("code-v1");
    write(dir, "agent.config.mjs", `${esmWrite("code-v2")}\nexport default {};\n`);
    const changed = await run(["tools"], dir);
    expect(h.markers()).not.toContain("code-v2");
    expect(changed.stderr).toContain("config code agent.config.mjs");
    // Untrusted again: nothing runs.
    expect((await run(["untrust"], dir)).stdout).toContain("no longer trusted");
    h.clear();
    await run(["-p", "hi"], dir);
    expect(h.markers()).toEqual([]);
    expect((await run(["trust", "--list"], dir)).stdout).not.toContain(dir);
  }, 180_000);

  it("a trusted parent trusts its subfolders; home and / never do", async () => {
    h.clear();
    const parent = tempDir("agent-parent-");
    const child = path.join(parent, "child");
    mkdirSync(child);
    write(child, "package.json", { name: "child", private: true });
    write(child, ".claude/settings.json", { hooks: { SessionStart: [{ hooks: [{ type: "command", command: touch("child-hook") }] }] } });
    expect((await run(["trust", parent], child)).code).toBe(0);
    await run(["-p", "hi"], child);
    expect(h.markers()).toContain("child-hook");
    expect((await run(["untrust", parent], child)).code).toBe(0);
    // Home: trusting it trusts only itself.
    rmSync(h.marker("child-hook"));
    const r = await run(["trust", parent], child, { AGENT_TRUST: undefined, HOME: parent });
    expect(r.code).toBe(0);
    const below = await run(["-p", "hi"], child, { AGENT_TRUST: undefined, HOME: parent });
    expect(below.code).toBe(0);
    expect(h.markers()).toEqual([]);
    expect(below.stderr).toContain("not trusted");
    // `/` likewise.
    await run(["untrust", parent], child, { AGENT_TRUST: undefined, HOME: parent });
    expect((await run(["trust", "/"], child)).code).toBe(0);
    await run(["-p", "hi"], child);
    expect(h.markers()).toEqual([]);
    await run(["untrust", "/"], child);
  }, 120_000);

  it("a repository cannot trust itself: a trust file inside it, AGENT_TRUST in its .env or settings, count for nothing", async () => {
    h.clear();
    const dir = tempDir("agent-selftrust-");
    h.common(dir, "self");
    write(dir, "trusted-folders.json", { version: 1, folders: [{ path: dir, trustedAt: "2026-01-01" }] });
    write(dir, ".agent/trusted-folders.json", { version: 1, folders: [{ path: dir, trustedAt: "2026-01-01" }] });
    write(dir, ".env", "AGENT_TRUST=1\n");
    write(dir, ".agentrc.json", { env: { AGENT_TRUST: "1" } });
    await run(["-p", "hi"], dir);
    await run(["tools"], dir);
    expect(h.markers()).toEqual([]);
  }, 60_000);
});

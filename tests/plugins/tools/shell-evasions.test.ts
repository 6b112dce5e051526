/**
 * A deny rule on `rm` holds whatever the model writes: every line of the evasion table is sent to a real
 * host's run_command (real files, real bash) in bypass with every other command allowed, and the file it
 * would delete is checked after each. Then the same host still runs ordinary lines, and a line it cannot
 * judge is refused with the reason and how to write it.
 */
import { existsSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import toolsPlugin from "../../../plugins/tools/index.js";
import { EVASIONS } from "../../fixtures/shell-evasions.js";
import { cleanupTemp, tempProject, type TempProject } from "../../helpers/project.js";

let p: TempProject;
let host: Host;
beforeAll(async () => {
  p = tempProject({ f: "keep me\n", "s.sh": "rm -f f\n", "sub/s.sh": "echo fine\n", "src/a.txt": "a\n" });
  host = await createHost({
    cwd: p.dir,
    userConfigDir: false,
    loadConfigFiles: false,
    audit: false,
    builtins: [{ name: "tools", load: async () => toolsPlugin }],
    permissionMode: "bypass",
    config: { permissions: { allow: ["run_command"], deny: ["run_command(rm:*)"] } },
  });
});
afterAll(async () => {
  await host.close();
  cleanupTemp();
});

describe("a deny rule on rm against a real shell", () => {
  it(`none of ${EVASIONS.length} lines deletes the file`, async () => {
    const through: string[] = [];
    for (const command of EVASIONS) {
      const r = await host.tools.call("run_command", { command });
      if (!existsSync(p.path("f"))) {
        through.push(`${JSON.stringify(command)}: ${r.ok ? "ran" : r.error?.code}`);
        writeFileSync(p.path("f"), "keep me\n");
      } else if (r.error?.code !== "E_TOOL_DENIED") through.push(`${JSON.stringify(command)}: not denied (${r.ok ? "ran" : r.error?.code})`);
    }
    expect(through).toEqual([]);
  });

  it("the table is real: without the deny rule most of its lines do delete the file (128 of 160 here)", async () => {
    const open = await createHost({
      cwd: p.dir,
      userConfigDir: false,
      loadConfigFiles: false,
      audit: false,
      builtins: [{ name: "tools", load: async () => toolsPlugin }],
      permissionMode: "bypass",
      config: { permissions: { allow: ["run_command"] } },
    });
    let deleted = 0;
    try {
      for (const command of EVASIONS) {
        // A few run on (`watch`) or wait: each is stopped after a while, deleting or not.
        await open.tools.call("run_command", { command, timeout_ms: 3000 });
        if (!existsSync(p.path("f"))) deleted++;
        writeFileSync(p.path("f"), "keep me\n");
        writeFileSync(p.path("s.sh"), "rm -f f\n");
      }
    } finally {
      await open.close();
    }
    // Some need what this machine may lack (sudo, doas, su, a variable set): the rest are real deletions.
    expect(deleted).toBeGreaterThan(EVASIONS.length * 0.7);
  }, 300_000);

  it("ordinary lines still run", async () => {
    for (const command of ["ls | wc -l", "cd sub && bash s.sh", "cat src/a.txt | head -1", "echo rm f", "timeout 5 echo ok"]) {
      const r = await host.tools.call("run_command", { command });
      expect(r.ok, `${command}: ${r.output}`).toBe(true);
    }
  });

  it("a line it cannot judge is refused with why, and how to write it", async () => {
    const r = await host.tools.call("run_command", { command: "X=ls; $X" });
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe("E_TOOL_DENIED");
    expect(r.output).toContain("the command word `$X` is computed when it runs");
    expect(r.output).toContain('the deny rule "run_command(rm:*)" may match');
    expect(r.output).toContain("a literal command word");
  });
});

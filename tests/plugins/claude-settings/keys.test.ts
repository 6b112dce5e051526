/**
 * Claude Code settings keys that change what the agent may do, read as Claude Code reads them:
 * `permissions.additionalDirectories` (the workspace's extra roots), `disableBypassPermissionsMode`
 * (a security switch: honoured, never dropped), `sandbox.*` (mapped onto agent-host's sandbox, or warned
 * about), and `Skill(name)` rules, which name the `skill` tool here.
 */
import path from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { loadConfig, prepareHost } from "./_helpers.js";
import { ConfigError } from "../../../kit/errors.js";
import { cleanupTemp, tempDir, tempProject, writeFile } from "../../helpers/project.js";

vi.setConfig({ testTimeout: 30_000 });
afterAll(cleanupTemp);
const savedDir = process.env.CLAUDE_CONFIG_DIR;
afterEach(() => {
  process.env.CLAUDE_CONFIG_DIR = savedDir;
});

describe("permissions.additionalDirectories", () => {
  test("become workspace roots (relative to the project, ~ from home) in a trusted folder", async () => {
    const extra = tempDir("extra-");
    const p = tempProject({ ".claude/settings.json": { permissions: { additionalDirectories: [extra, "../sibling"] } } });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false, trust: true });
    expect(loaded.config.workspace?.roots).toEqual([extra, path.resolve(p.dir, "../sibling")]);
    const host = await (await prepareHost({ cwd: p.dir, userConfigDir: false, trust: true, audit: false })).open();
    try {
      expect(host.workspace.roots).toContain(extra);
    } finally {
      await host.close();
    }
  });

  test("are held back in a folder nobody trusted (a cloned repository cannot widen where tools write)", async () => {
    const p = tempProject({ ".claude/settings.json": { permissions: { additionalDirectories: ["/"] } } });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false, trust: false });
    expect(loaded.config.workspace?.roots ?? []).toEqual([]);
  });

  test("a value that is not a list of paths is an error naming the file and key", async () => {
    const p = tempProject({ ".claude/settings.json": { permissions: { additionalDirectories: "/tmp" } } });
    const err = await loadConfig({ cwd: p.dir, userConfigDir: false }).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err.message)).toContain("permissions.additionalDirectories");
    expect(String(err.message)).toContain(p.path(".claude/settings.json"));
  });
});

describe("disableBypassPermissionsMode", () => {
  test('"disable" refuses bypass mode at start, naming the file', async () => {
    const p = tempProject({ ".claude/settings.json": { permissions: { disableBypassPermissionsMode: "disable" } } });
    const prepared = await prepareHost({ cwd: p.dir, userConfigDir: false, audit: false, permissionMode: "bypass" });
    const err = await prepared.open().catch((e) => e);
    expect(err?.code).toBe("E_USAGE");
    expect(err.message).toContain("bypass mode is disabled by");
    expect(err.message).toContain(p.path(".claude/settings.json"));
  });

  test("and when a session switches to it; other modes still work", async () => {
    const p = tempProject({ ".claude/settings.json": { permissions: { disableBypassPermissionsMode: "disable" } } });
    const host = await (await prepareHost({ cwd: p.dir, userConfigDir: false, audit: false })).open();
    try {
      expect(() => host.setPermissionMode("bypass")).toThrow(/bypass mode is disabled/);
      expect(host.permissionMode).toBe("default");
      host.setPermissionMode("acceptEdits");
      expect(host.permissionMode).toBe("acceptEdits");
    } finally {
      await host.close();
    }
  });

  test("the user's switch holds against a folder's own config that turns it off", async () => {
    const claudeHome = tempDir("claude-home-");
    writeFile(path.join(claudeHome, "settings.json"), { permissions: { disableBypassPermissionsMode: "disable" } });
    process.env.CLAUDE_CONFIG_DIR = claudeHome;
    const userDir = tempDir("agent-user-");
    const p = tempProject({ ".agentrc.json": { permissions: { disableBypass: false, mode: "bypass" } } });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: userDir, trust: true });
    expect(loaded.config.permissions?.disableBypass).toBe(true);
  });

  test("another value is an error, never silently dropped", async () => {
    const p = tempProject({ ".claude/settings.json": { permissions: { disableBypassPermissionsMode: true } } });
    const err = await loadConfig({ cwd: p.dir, userConfigDir: false }).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err.message)).toContain("disableBypassPermissionsMode");
  });
});

describe("sandbox", () => {
  test("allowed domains and filesystem lists map onto agent-host's sandbox; the rest is warned about", async () => {
    const p = tempProject({
      ".claude/settings.json": {
        sandbox: {
          enabled: true,
          autoAllowBashIfSandboxed: true,
          excludedCommands: ["docker"],
          network: { allowedDomains: ["registry.npmjs.org", "*.github.com"], allowLocalBinding: true },
          filesystem: { allowWrite: ["./build", "~/.cache/x"], denyRead: ["./secrets"], denyWrite: ["./locked"] },
        },
      },
    });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false, trust: true });
    expect(loaded.config.sandbox?.network).toEqual(["registry.npmjs.org", "*.github.com"]);
    expect(loaded.config.sandbox?.allowWrite?.[0]).toBe(p.path("build"));
    expect(loaded.config.sandbox?.denyRead).toEqual([p.path("secrets")]);
    const warned = loaded.warnings.join("\n");
    for (const key of ["sandbox.autoAllowBashIfSandboxed", "sandbox.excludedCommands", "sandbox.network.allowLocalBinding", "sandbox.filesystem.denyWrite"]) {
      expect(warned).toContain(`${key} was not applied`);
    }
    expect(warned).not.toContain("sandbox.enabled");
  });

  test("enabled: false does not turn agent-host's sandbox off; it says so", async () => {
    const p = tempProject({ ".claude/settings.json": { sandbox: { enabled: false } } });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false, trust: true });
    expect(loaded.config.sandbox?.enabled).not.toBe(false);
    expect(loaded.warnings.join("\n")).toContain("sandbox.enabled was not applied");
  });
});

describe("real settings files from Anthropic's examples", () => {
  const saved = process.env.AGENT_CLAUDE_MANAGED_SETTINGS;
  afterEach(() => {
    if (saved === undefined) delete process.env.AGENT_CLAUDE_MANAGED_SETTINGS;
    else process.env.AGENT_CLAUDE_MANAGED_SETTINGS = saved;
  });

  // examples/settings/settings-bash-sandbox.json of anthropics/claude-code: every value as strict as ours or stricter.
  const BASH_SANDBOX = {
    allowManagedPermissionRulesOnly: true,
    sandbox: {
      enabled: true,
      autoAllowBashIfSandboxed: false,
      allowUnsandboxedCommands: false,
      excludedCommands: [],
      network: { allowUnixSockets: [], allowAllUnixSockets: false, allowLocalBinding: false, allowedDomains: [], httpProxyPort: null, socksProxyPort: null },
      enableWeakerNestedSandbox: false,
    },
  };

  test("a strict sandbox section loads without a warning and leaves agent-host's sandbox as strict as it was", async () => {
    const p = tempProject({ ".claude/settings.json": BASH_SANDBOX });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false, trust: true });
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config.sandbox ?? {}).toEqual({});
  });

  test("the managed settings file (settings-strict.json as policy) goes over agent-host's own files", async () => {
    const managed = writeFile(path.join(tempDir("managed-"), "managed-settings.json"), {
      permissions: { disableBypassPermissionsMode: "disable", ask: ["Bash"], deny: ["WebSearch", "WebFetch"], defaultMode: "plan" },
      allowManagedPermissionRulesOnly: true,
      allowManagedHooksOnly: true,
      strictKnownMarketplaces: [],
    });
    process.env.AGENT_CLAUDE_MANAGED_SETTINGS = managed;
    const p = tempProject({ ".agentrc.json": { permissions: { mode: "acceptEdits", disableBypass: false, allow: ["run_command"], deny: ["Bash(rm:*)"] } } });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false, trust: true });
    expect(loaded.files.at(-1)).toBe(managed);
    // allowManagedPermissionRulesOnly: the project's allow rule is gone; its deny rule stays.
    expect(loaded.config.permissions).toEqual({ mode: "plan", disableBypass: true, allow: [], ask: ["Bash"], deny: ["Bash(rm:*)", "WebSearch", "WebFetch"] });
    const err = await (await prepareHost({ cwd: p.dir, userConfigDir: false, trust: true, audit: false, permissionMode: "bypass" })).open().catch((e) => e);
    expect(err.message).toContain(`bypass mode is disabled by ${managed}`);
  });
});

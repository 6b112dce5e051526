/**
 * `CommandSandbox`, the public face of the sandbox: one per host. `wrap` turns a spawn into the same
 * spawn inside bwrap (Linux) or sandbox-exec (macOS), with the mounts of the moment and, for a host
 * list, a proxy of its own; where no sandbox works it says so once and hands the spawn back unchanged,
 * unless `sandbox.required` makes that an error.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AgentConfig, CommandSandbox, SandboxedSpawn, Workspace } from "../core/index.js";
import { AgentError } from "../kit/errors.js";
import type { SandboxSpawnSpec, SandboxStatus } from "../core/embed.js";
import { bridged, PROXY_PORT, proxyEnv } from "./bridge.js";
import { bwrapArgs, PROXY_DIR_INSIDE } from "./bwrap-args.js";
import { detectSandbox, type Detection } from "./detect.js";
import { explainRefusal } from "./explain.js";
import { sandboxMounts, type SandboxMounts } from "./mounts.js";
import type { HostProxy } from "./proxy.js";
import { seatbeltProfile } from "./seatbelt.js";
import { unixSocketFilterFile, withFilter } from "./seccomp.js";
import { describeNetwork, sandboxSettings, type SandboxSettings } from "./settings.js";

function statusOf(d: Detection, s: SandboxSettings): SandboxStatus {
  if (!s.enabled) return { kind: "none", reason: "switched off (config sandbox.enabled: false)", required: s.required };
  if (d.kind === "none") return { kind: "none", reason: d.reason, required: s.required };
  if (d.kind === "seatbelt") return { kind: d.kind, required: s.required };
  return { kind: d.kind, required: s.required, unixSockets: d.seccomp && s.network === "none" ? "closed" : "open" };
}

/** A spawn the sandbox leaves as it is. */
function unchanged(spec: SandboxSpawnSpec, notice: string | undefined): SandboxedSpawn {
  return { file: spec.file, args: [...spec.args], cwd: spec.cwd, env: { ...spec.env }, kind: "none", ...(notice ? { notice } : {}), explain: () => undefined, dispose: () => {} };
}

export function createCommandSandbox(config: AgentConfig["sandbox"], workspace: Workspace): CommandSandbox {
  const settings = sandboxSettings(config, workspace.root);
  let told = false;
  let macTmp: string | undefined;
  const status = async () => statusOf(settings.enabled ? await detectSandbox() : { kind: "none", reason: "" }, settings);

  async function proxyFor(listen: { path: string } | { port: 0 }): Promise<HostProxy | undefined> {
    // node:http and node:net load only for a sandbox that filters hosts (not at every start-up).
    return Array.isArray(settings.network) ? (await import("./proxy.js")).startProxy(settings.network as string[], listen) : undefined;
  }

  async function wrapBwrap(file: string, seccomp: boolean, spec: SandboxSpawnSpec, mounts: SandboxMounts): Promise<SandboxedSpawn> {
    const dir = Array.isArray(settings.network) ? mkdtempSync(path.join(tmpdir(), "agent-proxy-")) : undefined;
    const proxy = dir ? await proxyFor({ path: path.join(dir, "proxy.sock") }) : undefined;
    const command = proxy ? bridged(`${PROXY_DIR_INSIDE}/proxy.sock`, [spec.file, ...spec.args]) : [spec.file, ...spec.args];
    // No Unix sockets where the network is closed (a socket file is a way past the network namespace);
    // a host list needs them for the bridge to its proxy, and "all" opens the network anyway.
    const filter = seccomp && settings.network === "none" ? unixSocketFilterFile() : undefined;
    const args = bwrapArgs(mounts, { cwd: spec.cwd, network: settings.network === "all" ? "all" : "none", ...(dir ? { proxyDir: dir } : {}), seccomp: !!filter }, command);
    const env = { ...spec.env, TMPDIR: "/tmp", ...(proxy ? proxyEnv(PROXY_PORT) : {}) };
    const run = filter ? withFilter(file, args, filter) : { file, args };
    return finished({ ...run, cwd: spec.cwd, env, kind: "bwrap" }, mounts, proxy, dir);
  }

  async function wrapSeatbelt(file: string, spec: SandboxSpawnSpec, mounts: SandboxMounts): Promise<SandboxedSpawn> {
    macTmp ??= mkdtempSync(path.join(tmpdir(), "agent-sandbox-tmp-"));
    const proxy = await proxyFor({ port: 0 });
    const profile = seatbeltProfile(mounts, { tmpDir: macTmp, network: settings.network === "all" ? "all" : "none", ...(proxy?.port ? { proxyPort: proxy.port } : {}) });
    const env = { ...spec.env, TMPDIR: macTmp, ...(proxy?.port ? proxyEnv(proxy.port) : {}) };
    return finished({ file, args: ["-p", profile, spec.file, ...spec.args], cwd: spec.cwd, env, kind: "seatbelt" }, mounts, proxy, undefined);
  }

  function finished(base: Omit<SandboxedSpawn, "explain" | "dispose">, mounts: SandboxMounts, proxy: HostProxy | undefined, dir: string | undefined): SandboxedSpawn {
    return {
      ...base,
      explain: (r) => explainRefusal(r, { mounts, cwd: base.cwd, network: settings.network, refused: proxy?.refused ?? [] }),
      dispose: () => {
        proxy?.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  return {
    status,
    hooks: settings.hooks,
    describe: () => describePolicy(settings),
    async wrap(spec) {
      const st = await status();
      if (st.kind === "none") {
        if (settings.required) throw new AgentError("E_SANDBOX_UNAVAILABLE", `Not run: config sandbox.required is set and no OS sandbox works here: ${st.reason}.`);
        const notice = told ? undefined : `[sandbox] Commands run without an OS sandbox: ${st.reason}. Only the permission rules stand between a command and the machine.`;
        told = true;
        return unchanged(spec, notice);
      }
      const det = (await detectSandbox()) as Exclude<Detection, { kind: "none" }>;
      const mounts = sandboxMounts(settings, workspace.roots, spec.approvedWrites);
      return det.kind === "bwrap" ? wrapBwrap(det.file, det.seccomp, spec, mounts) : wrapSeatbelt(det.file, spec, mounts);
    },
  };
}

export function describePolicy(s: SandboxSettings): string {
  const writes = ["the workspace", "a private /tmp", ...s.allowWrite].join(", ");
  const hidden = s.denyRead.length ? `credentials and ${s.denyRead.join(", ")} hidden` : "credentials hidden";
  return `writes: ${writes} (protected files read-only); network: ${describeNetwork(s.network)}; ${hidden}`;
}

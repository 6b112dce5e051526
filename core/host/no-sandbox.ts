/**
 * The sandbox of a host given none (`createHost` without `sandbox`): commands run as they are. Like an OS
 * sandbox that does not work here, it says so once and, with `sandbox.required`, refuses instead.
 */
import { AgentError } from "../../kit/errors.js";
import type { AgentConfig } from "../config/config-schema.js";
import type { CommandSandbox, SandboxStatus } from "../types.js";

export function noCommandSandbox(config: AgentConfig["sandbox"]): CommandSandbox {
  const required = config?.required === true;
  const reason = config?.enabled === false ? "switched off (config sandbox.enabled: false)" : "this host was given no OS sandbox (createHost option sandbox)";
  const status: SandboxStatus = { kind: "none", reason, required };
  let told = false;
  return {
    status: async () => status,
    hooks: config?.hooks === true,
    describe: () => `no OS sandbox: ${reason}`,
    async wrap(spec) {
      if (required) throw new AgentError("E_SANDBOX_UNAVAILABLE", `Not run: config sandbox.required is set and no OS sandbox works here: ${reason}.`);
      const notice = told ? undefined : `[sandbox] Commands run without an OS sandbox: ${reason}. Only the permission rules stand between a command and the machine.`;
      told = true;
      return { file: spec.file, args: [...spec.args], cwd: spec.cwd, env: { ...spec.env }, kind: "none", ...(notice ? { notice } : {}), explain: () => undefined, dispose: () => {} };
    },
  };
}

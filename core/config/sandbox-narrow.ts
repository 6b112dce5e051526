/**
 * What an untrusted folder's `sandbox` setting may do (core/config/trust-config.ts): every part that narrows
 * applies (`required: true`, more `denyRead`, `network: "none"`, `hooks: true`, hosts the user already
 * allows); every part that widens (`enabled: false`, `allowWrite`, more network, `required: false` or
 * `hooks: false` over the user's true) is one trust item, kept only when the trust admits it.
 */
import type { AgentConfig } from "./config-schema.js";

type Sandbox = NonNullable<AgentConfig["sandbox"]>;
type Admit = (kind: string, name: string, value: unknown, detail?: string) => boolean;

const KIND = "sandbox setting";

function narrowNetwork(net: Sandbox["network"], user: Sandbox["network"], admit: Admit): Sandbox["network"] | undefined {
  if (net === undefined || net === "none" || user === "all") return net;
  if (net === "all") return admit(KIND, "network: all", "all", "commands may connect anywhere") ? net : undefined;
  const known = Array.isArray(user) ? user : [];
  const kept = net.filter((h) => known.includes(h) || admit("sandbox network host", h, h, `commands may connect to ${h}`));
  return kept.length ? kept : undefined;
}

export function narrowSandbox(s: Sandbox, user: Sandbox | undefined, admit: Admit): Sandbox {
  const out: Sandbox = { ...s };
  if (s.enabled === false && !admit(KIND, "enabled: false", false, "commands run outside the OS sandbox")) delete out.enabled;
  if (s.required === false && user?.required === true && !admit(KIND, "required: false", false, "commands run unsandboxed where no sandbox works")) delete out.required;
  if (s.hooks === false && user?.hooks === true && !admit(KIND, "hooks: false", false, "command hooks run outside the OS sandbox")) delete out.hooks;
  if (s.allowWrite) out.allowWrite = s.allowWrite.filter((p) => admit("sandbox write path", p, p, `commands may write ${p}`));
  const network = narrowNetwork(s.network, user?.network, admit);
  if (network === undefined) delete out.network;
  else out.network = network;
  return out;
}

/** `/mode [mode]`: show or change the permission mode for the rest of the session. */
import { defineCommand, PERMISSION_MODES, type PermissionMode } from "../core/index.js";

const MEANING: Record<PermissionMode, string> = {
  default: "read tools run; others ask",
  plan: "read tools only; everything else is denied",
  acceptEdits: "read and write tools run; others ask",
  bypass: "every tool runs without asking (still audited)",
};

export default defineCommand({
  name: "mode",
  description: "Show or set the permission mode",
  argumentHint: "[default|plan|acceptEdits|bypass]",
  run(args, { host, byUser, setPermissionMode }) {
    const wanted = args.trim();
    if (!wanted) {
      return [
        `Permission mode: ${host.permissionMode} (${MEANING[host.permissionMode]})`,
        ...PERMISSION_MODES.map((m) => `  ${m.padEnd(11)}  ${MEANING[m]}`),
      ].join("\n");
    }
    const mode = PERMISSION_MODES.find((m) => m.toLowerCase() === wanted.toLowerCase());
    if (!mode) return `Unknown mode "${wanted}". Choose one of: ${PERMISSION_MODES.join(", ")}.`;
    // Only the user changes the mode: this works when they typed /mode (not when code runs the command).
    if (!byUser) return `The permission mode can only be changed by you, typing /mode ${mode}.`;
    setPermissionMode(mode);
    return `Permission mode: ${mode} (${MEANING[mode]}).`;
  },
});

/**
 * The OS sandbox for commands (bubblewrap on Linux, sandbox-exec on macOS), outside the kernel: the kernel
 * knows only the `CommandSandbox` interface, and the composition root passes `createCommandSandbox` to the
 * host (`createHost({ sandbox })`; the CLI does, and `agent-host/builtins` exports it for embedders).
 * It uses the kernel's public entries and kit, nothing else.
 */
export { createCommandSandbox } from "./command-sandbox.js";

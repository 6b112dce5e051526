/**
 * The architecture as rules (checked by tests/architecture.test.ts in `npm test`):
 * core knows no plugin and no CLI; kit (agent-host/kit, shared helpers) knows nothing of the host;
 * plugins, commands and the CLI use core and kit only through their public entries; built-in plugins do
 * not reach into each other; nothing imports in a cycle, not even for types.
 */
module.exports = {
  forbidden: [
    {
      name: "core-knows-no-plugin",
      comment: "core/ is the small core: it imports nothing from plugins/, cli/, commands/, examples/ or sandbox/ (the OS sandbox: the composition root passes it).",
      severity: "error",
      from: { path: "^core/" },
      to: { path: "^(plugins|cli|commands|examples|skills|sandbox|testing)/" },
    },
    {
      name: "kit-knows-no-host",
      comment: "kit/ (agent-host/kit) holds helpers anyone may use: it imports nothing from core/, plugins/, cli/ or commands/.",
      severity: "error",
      from: { path: "^kit/" },
      to: { path: "^(core|plugins|cli|commands|examples|skills|sandbox)/" },
    },
    {
      name: "public-api-only",
      comment: "Plugins, commands and the CLI use core and kit only through their entries (core/index.ts, core/embed.ts, kit/index.ts), as a third party would.",
      severity: "error",
      from: { path: "^(plugins|commands|cli)/" },
      to: { path: "^(core|kit)/", pathNot: "^(core/(index|embed)|kit/index)\\.ts$" },
    },
    {
      name: "sandbox-uses-the-contract",
      comment: "sandbox/ (the OS sandbox) implements the kernel's CommandSandbox: it uses core only through its entries, kit, and nothing of plugins or the CLI.",
      severity: "error",
      from: { path: "^sandbox/" },
      to: { path: "^(core|plugins|cli|commands|examples|skills)/", pathNot: "^core/(index|embed)\\.ts$" },
    },
    {
      name: "testing-uses-the-contract",
      comment: "testing/ (agent-host/testing, the plugin author's test host) builds on the kernel's entries as a plugin author's own harness would.",
      severity: "error",
      from: { path: "^testing/" },
      to: { path: "^(core|plugins|cli|commands|examples|skills|sandbox)/", pathNot: "^core/(index|embed)\\.ts$" },
    },
    {
      name: "plugins-stay-apart",
      comment: "A built-in plugin does not import another plugin's files (plugins/commands may load the command files).",
      severity: "error",
      from: { path: "^plugins/([^/]+)/" },
      to: { path: "^plugins/([^/]+)/", pathNot: "^plugins/$1/" },
    },
    {
      name: "plugins-know-no-cli",
      comment: "Plugins contribute CLI commands through the public API, never by importing the CLI.",
      severity: "error",
      from: { path: "^(plugins|commands)/" },
      to: { path: "^cli/" },
    },
    {
      name: "only-the-composition-root-picks-plugins",
      comment: "cli/builtins.ts is the one place that names the built-in plugins.",
      severity: "error",
      from: { path: "^cli/", pathNot: "^cli/builtins\\.ts$" },
      to: { path: "^plugins/" },
    },
    {
      name: "no-circular",
      comment: "No import cycle, type-only imports included: types that refer to each other live in one module (core/contract.ts).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(tests|bench|dist|templates)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"], extensions: [".ts", ".js", ".mjs", ".json"] },
  },
};

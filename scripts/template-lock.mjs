// After tsup: write dist/plugin-template-lock.json, the part of package-lock.json that the plugin
// template's dev tools need. npm never packs package-lock.json, so an installed agent-host has only
// this one to give `agent plugin new` scaffolds their offline-installable lock.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";

const root = new URL("../", import.meta.url);
// The same closure code the CLI uses (TypeScript source, loaded through jiti, a dependency anyway).
const { closureLock, readLockfile } = await createJiti(import.meta.url).import("../cli/npm-lock.ts");

const lock = readLockfile(fileURLToPath(new URL("package-lock.json", root)));
if (!lock) {
  console.warn("template-lock: no package-lock.json; plugin scaffolds will resolve their dev tools from the registry");
  process.exit(0);
}
const template = JSON.parse(readFileSync(new URL("templates/plugin/package.json", root), "utf8"));
const tools = Object.fromEntries(
  Object.keys(template.devDependencies ?? {})
    .filter((name) => name !== "agent-host")
    .map((name) => [name, lock.packages[`node_modules/${name}`]?.version ?? "*"]),
);
const out = closureLock(lock, { name: "agent-plugin-template", version: "0.0.0", devDependencies: tools });
if (!out) throw new Error(`template-lock: package-lock.json lacks some of ${Object.keys(tools).join(", ")}`);
writeFileSync(new URL("dist/plugin-template-lock.json", root), `${JSON.stringify(out, null, 2)}\n`);
console.log(`template-lock: dist/plugin-template-lock.json (${Object.keys(out.packages).length - 1} packages)`);

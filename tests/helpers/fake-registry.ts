/**
 * A minimal npm registry on 127.0.0.1 for real `npm install` runs: it serves the packuments and
 * tarballs of the packages it is given and answers 404 for every other name (as the public registry
 * does for agent-host, which is not published). Enough for npm's install of a plain package.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";

export interface FakePackage {
  /** package.json of the package (name and version required). */
  manifest: Record<string, unknown> & { name: string; version: string };
  /** Other files, relative path → content. */
  files?: Record<string, string>;
}

export interface FakeRegistry {
  url: string;
  /** Names requested, in order (packuments only). */
  requested: string[];
  close(): Promise<void>;
}

/** `npm pack` each package in `workDir` and serve them. */
export async function startFakeRegistry(packages: FakePackage[], workDir: string): Promise<FakeRegistry> {
  const tarballs = new Map<string, Buffer>();
  const manifests = new Map<string, FakePackage["manifest"]>();
  for (const p of packages) {
    const dir = path.join(workDir, `${p.manifest.name.replace("/", "+")}-${p.manifest.version}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "package.json"), JSON.stringify(p.manifest, null, 2));
    for (const [rel, text] of Object.entries(p.files ?? {})) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    }
    const file = execFileSync("npm", ["pack", "--silent", "--pack-destination", workDir], { cwd: dir, encoding: "utf8" }).trim().split("\n").at(-1)!;
    tarballs.set(`${p.manifest.name}-${p.manifest.version}.tgz`, readFileSync(path.join(workDir, file)));
    manifests.set(p.manifest.name, p.manifest);
  }
  const requested: string[] = [];
  let base = "";
  const server: Server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").slice(1));
    const tgz = /^(.+)\/-\/(.+\.tgz)$/.exec(name);
    if (tgz && tarballs.has(tgz[2])) {
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(tarballs.get(tgz[2]));
      return;
    }
    requested.push(name);
    const manifest = manifests.get(name);
    if (!manifest) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "Not found" }));
      return;
    }
    const data = tarballs.get(`${name}-${manifest.version}.tgz`)!;
    const dist = {
      tarball: `${base}/${name}/-/${name}-${manifest.version}.tgz`,
      shasum: createHash("sha1").update(data).digest("hex"),
      integrity: `sha512-${createHash("sha512").update(data).digest("base64")}`,
    };
    const packument = { name, "dist-tags": { latest: manifest.version }, versions: { [manifest.version]: { ...manifest, dist } } };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(packument));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
  return { url: `${base}/`, requested, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

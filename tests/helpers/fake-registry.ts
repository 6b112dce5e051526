/**
 * A minimal npm registry on 127.0.0.1 for real `npm install` runs: it serves the packuments and
 * tarballs of the packages it is given and answers 404 for every other name (as the public registry
 * does for agent-host, which is not published). Enough for npm's install of a plain package, and for
 * `npm adduser` (a user's name and password prompted for; any will do, as verdaccio's first adduser
 * creates the user) and `npm publish` with the token adduser got.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
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
  /** Packages published to it (`npm publish`): name → the manifest npm sent and the tarball. */
  published: Map<string, { manifest: Record<string, unknown>; tarball: Buffer }>;
  /** Users `npm adduser` created. */
  users: string[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
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
  const published: FakeRegistry["published"] = new Map();
  const users: string[] = [];
  const TOKEN = "fake-registry-token";
  let base = "";
  const server: Server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").slice(1));
    if (req.method === "PUT" || req.method === "POST") {
      readBody(req).then((body) => {
        const answer = (status: number, json: object) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
        // No web login here: npm falls back to asking for a name and password, as with verdaccio.
        if (name.startsWith("-/v1/login")) return answer(404, { error: "Not found" });
        const user = /^-\/user\/org\.couchdb\.user:(.+)$/.exec(name);
        if (user) {
          users.push(user[1]);
          return answer(201, { ok: true, id: `org.couchdb.user:${user[1]}`, token: TOKEN });
        }
        if (req.headers.authorization !== `Bearer ${TOKEN}`) return answer(401, { error: "authentication required to publish" });
        const doc = JSON.parse(body.toString("utf8")) as { versions: Record<string, FakePackage["manifest"]>; _attachments: Record<string, { data: string }> };
        const [manifest] = Object.values(doc.versions);
        const [attachment] = Object.values(doc._attachments);
        const tarball = Buffer.from(attachment.data, "base64");
        published.set(manifest.name, { manifest, tarball });
        tarballs.set(`${manifest.name}-${manifest.version}.tgz`, tarball);
        manifests.set(manifest.name, manifest);
        return answer(201, { ok: "created" });
      }, () => res.writeHead(400).end());
      return;
    }
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
  return { url: `${base}/`, requested, published, users, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

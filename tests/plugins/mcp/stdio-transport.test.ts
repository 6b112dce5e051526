import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ServerLog } from "../../../plugins/mcp/transport/server-log.js";
import { minimalEnvironment, StdioServerProcess } from "../../../plugins/mcp/transport/stdio-process.js";
import { LineSplitter, ProcessTransport } from "../../../plugins/mcp/transport/stdio-transport.js";
import { ProcessScope } from "../../../kit/processes.js";
import { cleanup, fixture, isAlive, tempDir } from "./_helpers.js";

afterAll(cleanup);

describe("stdio plumbing", () => {
  it("gives servers exactly the SDK's default environment (mirrored so spawning need not load the SDK)", () => {
    expect(minimalEnvironment()).toEqual(getDefaultEnvironment());
  });

  it("splits lines across chunks without losing or merging any", () => {
    const lines: string[] = [];
    const s = new LineSplitter(1024, (l) => lines.push(l), () => lines.push("OVERFLOW"));
    for (const chunk of ["ab", "c\nde", "f\n\ng", "h\n"]) s.push(Buffer.from(chunk));
    expect(lines).toEqual(["abc", "def", "", "gh"]);
  });

  it("reports a line over the limit once and drops it, then carries on", () => {
    const lines: string[] = [];
    const s = new LineSplitter(8, (l) => lines.push(l), () => lines.push("OVERFLOW"));
    s.push(Buffer.from("0123456"));
    s.push(Buffer.from("789abc"));
    s.push(Buffer.from("def\nok\n"));
    s.push(Buffer.from("0123456789\nfine\n"));
    expect(lines).toEqual(["OVERFLOW", "ok", "OVERFLOW", "fine"]);
  });
});

describe("the stdio transport with a real server", () => {
  it("closes the connection with a clear reason when a message is over the limit, and stops the server", async () => {
    const dir = tempDir();
    const log = new ServerLog(path.join(dir, "big.log"));
    const { command, args } = fixture("big-output");
    const proc = new StdioServerProcess({ command, args, env: {}, cwd: dir, log, processes: new ProcessScope() });
    const transport = new ProcessTransport(proc, log, 1024 * 1024);
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    expect((await client.callTool({ name: "big", arguments: { bytes: 512 * 1024 } })).isError).toBeFalsy();
    await expect(client.callTool({ name: "big", arguments: { bytes: 2 * 1024 * 1024 } })).rejects.toThrow("Connection closed");
    expect(transport.closeReason).toBe("the server sent a message larger than 1.0 MiB");
    await proc.exited;
    expect(isAlive(proc.pid!)).toBe(false);
    expect(readFileSync(path.join(dir, "big.log"), "utf8")).toContain("the server sent a message larger than 1.0 MiB");
  });
});

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ServerLog } from "../../../plugins/mcp/transport/server-log.js";
import { minimalEnvironment, StdioServerProcess, stderrCauseLine } from "../../../plugins/mcp/transport/stdio-process.js";
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

describe("the cause of a failed start, from stderr", () => {
  it("finds the thrown error of Node, Python (exception groups too), Go, Rust, Java and npm, not the stack or version lines", () => {
    const node = "file:///srv/index.js:3\nthrow new Error('DATABASE_URL is not set');\n^\n\nError: DATABASE_URL is not set\n    at file:///srv/index.js:3:7\n\nNode.js v20.20.2\n";
    expect(stderrCauseLine([node])).toBe("Error: DATABASE_URL is not set");
    expect(stderrCauseLine(["node:internal/modules/esm/resolve:1\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/x.js\n    at packageResolve\n"])).toBe(
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/x.js",
    );
    expect(stderrCauseLine(["Traceback (most recent call last):\n  File \"s.py\", line 1, in <module>\nModuleNotFoundError: No module named 'mcp'\n"])).toBe("ModuleNotFoundError: No module named 'mcp'");
    const group = "  + Exception Group Traceback (most recent call last):\n  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n  +-+---- 1 ----\n    | Traceback (most recent call last):\n    | RuntimeError: Received request before initialization was complete\n";
    expect(stderrCauseLine([group])).toBe("RuntimeError: Received request before initialization was complete");
    expect(stderrCauseLine(["goroutine 1 [running]:\npanic: open config.yaml: no such file or directory\n"])).toBe("panic: open config.yaml: no such file or directory");
    expect(stderrCauseLine(["thread 'main' panicked at src/main.rs:4:5:\nno token\nnote: run with `RUST_BACKTRACE=1`\n"])).toBe("thread 'main' panicked at src/main.rs:4:5:");
    expect(stderrCauseLine(['Exception in thread "main" java.lang.IllegalStateException: no port\n\tat Main.main(Main.java:3)\n'])).toBe('Exception in thread "main" java.lang.IllegalStateException: no port');
    expect(stderrCauseLine(["npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/no-such-mcp - Not found\n"])).toBe(
      "npm error 404 Not Found - GET https://registry.npmjs.org/no-such-mcp - Not found",
    );
    // Nothing that names a cause: the caller falls back to the last lines.
    expect(stderrCauseLine(["starting up\nlistening on stdio\n"])).toBeUndefined();
    // The head first: a long stack does not push a Node error out.
    expect(stderrCauseLine(["Error: first\n", "    at x\nTypeError: later\n"])).toBe("Error: first");
  });
});

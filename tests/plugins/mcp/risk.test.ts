import { describe, expect, it } from "vitest";
import { inferRisk, riskOverride, words } from "../../../plugins/mcp/risk.js";

describe("MCP tool risk", () => {
  it("follows the annotations a server sets", () => {
    expect(inferRisk({ name: "frobnicate", annotations: { readOnlyHint: true } })).toBe("read");
    expect(inferRisk({ name: "frobnicate", annotations: { destructiveHint: true } })).toBe("write");
    expect(inferRisk({ name: "run_job", annotations: { destructiveHint: true } })).toBe("execute");
    expect(inferRisk({ name: "search", annotations: { readOnlyHint: true, openWorldHint: true } })).toBe("network");
    expect(inferRisk({ name: "get_thing", annotations: { readOnlyHint: false } })).toBe("write");
  });

  it("falls back to the name, then the description", () => {
    expect(inferRisk({ name: "read_file" })).toBe("read");
    expect(inferRisk({ name: "listDirectories" })).toBe("read");
    expect(inferRisk({ name: "create_entities" })).toBe("write");
    expect(inferRisk({ name: "delete-branch" })).toBe("write");
    expect(inferRisk({ name: "run_command" })).toBe("execute");
    expect(inferRisk({ name: "fetch_url" })).toBe("network");
    expect(inferRisk({ name: "frobnicate", description: "Read-only view of the widget" })).toBe("read");
    expect(inferRisk({ name: "frobnicate", description: "Deletes the widget" })).toBe("write");
  });

  it("treats a tool it cannot place as dangerous", () => {
    expect(inferRisk({ name: "frobnicate", description: "Frobnicates." })).toBe("execute");
  });

  it("lets config overrides win, exact names before globs", () => {
    const overrides = { "search": "read" as const, "delete_*": "execute" as const, "*": "network" as const };
    expect(riskOverride(overrides, "search")).toBe("read");
    expect(riskOverride(overrides, "delete_repo")).toBe("execute");
    expect(riskOverride({ x: "read" }, "y")).toBeUndefined();
  });

  it("splits names into words", () => {
    expect(words("readFile")).toEqual(["read", "file"]);
    expect(words("name.with.dots")).toEqual(["name", "with", "dots"]);
  });
});

import { describe, expect, it } from "vitest";
import { MAX_NAME_LENGTH, namesFor, sanitize, serverParts, uniqueNames } from "../../../plugins/mcp/naming.js";

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

describe("MCP tool names", () => {
  it("keeps clean names as mcp__<server>__<tool>", () => {
    const names = namesFor("github", ["search_issues", "get-file"]);
    expect(names.get("search_issues")).toBe("mcp__github__search_issues");
    expect(names.get("get-file")).toBe("mcp__github__get-file");
  });

  it("replaces characters model APIs reject, and hashes the changed names so they stay unique", () => {
    const names = namesFor("s", ["name.with.dots", "name with spaces", "name_with_dots"]);
    // The clean original keeps its exact name; the dirty one that maps onto it is told apart by a hash.
    expect(names.get("name_with_dots")).toBe("mcp__s__name_with_dots");
    expect(names.get("name.with.dots")).toMatch(/^mcp__s__name_with_dots_[0-9a-f]{6}$/);
    expect(names.get("name with spaces")).toMatch(/^mcp__s__name_with_spaces_[0-9a-f]{6}$/);
    for (const n of names.values()) expect(n).toMatch(VALID);
  });

  it("shortens overlong names to 64 characters with a stable hash, never colliding", () => {
    const long1 = "x".repeat(100);
    const long2 = `${"x".repeat(99)}y`;
    const a = namesFor("server", [long1, long2]);
    const b = namesFor("server", [long2, long1]);
    expect(a.get(long1)).toHaveLength(MAX_NAME_LENGTH);
    expect(a.get(long1)).not.toBe(a.get(long2));
    // Stable: the same original gives the same name whatever the order or the other tools.
    expect(b.get(long1)).toBe(a.get(long1));
    expect(namesFor("server", [long1]).get(long1)).toBe(a.get(long1));
  });

  it("gives 300 tools 300 distinct valid names", () => {
    const originals = [...Array.from({ length: 297 }, (_, i) => `tool_${i}`), "name.with.dots", "name with spaces", "x".repeat(100)];
    const names = namesFor("many", originals);
    expect(new Set(names.values()).size).toBe(300);
    for (const n of names.values()) expect(n).toMatch(VALID);
  });

  it("names an empty tool name with a hash rather than an invalid name", () => {
    expect(namesFor("s", [""]).get("")).toMatch(/^mcp__s__[0-9a-f]{6}$/);
  });

  it("keeps server parts short and unique", () => {
    const parts = serverParts(["my.server", "my_server", "a".repeat(50)]);
    expect(parts.get("my_server")).toBe("my_server");
    expect(parts.get("my.server")).toMatch(/^my_server_[0-9a-f]{6}$/);
    expect(parts.get("a".repeat(50))!.length).toBeLessThanOrEqual(32);
  });

  it("sanitize replaces every character outside [a-zA-Z0-9_-]", () => {
    expect(sanitize("a.b c/d:é")).toBe("a_b_c_d__");
    expect(uniqueNames(["ok"], 10).get("ok")).toBe("ok");
  });
});

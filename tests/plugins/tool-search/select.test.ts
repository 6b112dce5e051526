/** Which tools a request defers, how they are listed, how tool_search ranks them. */
import { describe, expect, test } from "vitest";
import type { ModelTool, RegisteredTool } from "../../../core/index.js";
import { DEFAULTS, deferrable, listing, search, shouldDefer } from "../../../plugins/tool-search/select.js";

const tool = (name: string, description = `does ${name}`, deferLoading = true): RegisteredTool =>
  ({ name, description, deferLoading, source: name.startsWith("mcp__") ? `mcp:${name.split("__")[1]}` : "tools", risk: "read", plugin: "p", inputSchema: { type: "object" } }) as RegisteredTool;
const asModel = (t: RegisteredTool): ModelTool => ({ name: t.name, description: t.description, inputSchema: t.inputSchema });

const GITHUB = ["create_issue", "list_issues", "get_pull_request", "merge_pull_request"].map((n) => tool(`mcp__github__${n}`, `GitHub: ${n.replace(/_/g, " ")}`));
const LOCAL = [tool("read_file", "Read a file", false), tool("grep", "Search file contents", false)];
const ALL = [...LOCAL, ...GITHUB];
const reg = (name: string) => ALL.find((t) => t.name === name);

describe("deferring", () => {
  test("only deferLoading tools, not loaded ones, not alwaysLoad ones", () => {
    const s = { ...DEFAULTS, alwaysLoad: ["mcp__github__list_*"] };
    const out = deferrable(ALL.map(asModel), reg, s, new Set(["mcp__github__create_issue"])).map((t) => t.name);
    expect(out).toEqual(["mcp__github__get_pull_request", "mcp__github__merge_pull_request"]);
  });

  test("auto defers past the byte budget or the tool count; off never; always whenever there is something", () => {
    const few = GITHUB.map(asModel);
    expect(shouldDefer(few, few, DEFAULTS)).toBe(false);
    expect(shouldDefer(few, few, { ...DEFAULTS, budgetBytes: 100 })).toBe(true);
    expect(shouldDefer(few, few, { ...DEFAULTS, maxTools: 3 })).toBe(true);
    expect(shouldDefer(few, few, { ...DEFAULTS, mode: "always" })).toBe(true);
    expect(shouldDefer(few, [], { ...DEFAULTS, mode: "always" })).toBe(false);
    expect(shouldDefer(few, few, { ...DEFAULTS, mode: "off", budgetBytes: 0 })).toBe(false);
  });

  test("the listing has short descriptions while they fit, then names only with the shared prefix once", () => {
    const src = (n: string) => reg(n)!.source;
    const roomy = listing(GITHUB.map(asModel), src, DEFAULTS);
    expect(roomy).toContain("mcp:github:\n- mcp__github__create_issue: GitHub: create issue");
    const tight = listing(GITHUB.map(asModel), src, { ...DEFAULTS, listingBytes: 300 });
    expect(tight).toContain("mcp:github: mcp__github__{create_issue,list_issues,get_pull_request,merge_pull_request}");
    expect(tight).not.toContain("GitHub: create issue");
  });
});

describe("tool_search", () => {
  test("keywords rank name hits over description hits; exact names come first; limit applies", () => {
    expect(search(GITHUB, { query: "pull request" }).map((t) => t.name)).toEqual(["mcp__github__get_pull_request", "mcp__github__merge_pull_request"]);
    expect(search(GITHUB, { query: "issue", limit: 1 }).map((t) => t.name)).toEqual(["mcp__github__create_issue"]);
    expect(search(GITHUB, { names: ["mcp__github__list_issues"], query: "merge" }).map((t) => t.name)).toEqual(["mcp__github__list_issues", "mcp__github__merge_pull_request"]);
    expect(search(GITHUB, { query: "nothing-like-this" })).toEqual([]);
  });

  test("a /regex/ matches names and descriptions; a broken one is a clear error", () => {
    expect(search(GITHUB, { query: "/^mcp__github__(get|merge)_/" }).map((t) => t.name)).toEqual(["mcp__github__get_pull_request", "mcp__github__merge_pull_request"]);
    expect(() => search(GITHUB, { query: "/(/" })).toThrow(/invalid regular expression \/\(\//);
  });
});

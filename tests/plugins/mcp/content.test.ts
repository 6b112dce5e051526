import { describe, expect, it } from "vitest";
import { base64Size, promptToText, toolResultToReturn } from "../../../plugins/mcp/content.js";
import { answerWithDefaults } from "../../../plugins/mcp/client/elicitation.js";
import { argumentHint, parsePromptArgs } from "../../../plugins/mcp/prompt-args.js";

describe("MCP results as text", () => {
  it("joins text and summarizes binary content instead of dumping it", () => {
    const png = Buffer.alloc(1000, 7).toString("base64");
    const r = toolResultToReturn(
      {
        content: [
          { type: "text", text: "hello" },
          { type: "image", data: png, mimeType: "image/png" },
          { type: "audio", data: png, mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "abc" } },
          { type: "resource_link", uri: "file:///b", name: "b" },
        ],
      },
      "mcp__s__resources",
    );
    expect(r).toEqual({
      output: [
        "hello",
        "[image (image/png, 1000 bytes)]",
        "[audio (audio/wav, 1000 bytes)]",
        "[resource file:///a.txt (text/plain, 3 bytes of text); read it with mcp__s__resources]",
        '[resource link file:///b "b"]',
      ].join("\n"),
    });
    expect(base64Size(png)).toBe(1000);
  });

  it("keeps structuredContent, and shows it when there is no text", () => {
    expect(toolResultToReturn({ content: [], structuredContent: { sum: 3 } })).toEqual({ output: '{\n  "sum": 3\n}', structured: { sum: 3 } });
  });

  it("marks isError results as errors, with a message even when the server gave none", () => {
    expect(toolResultToReturn({ content: [{ type: "text", text: "it failed" }], isError: true })).toEqual({ output: "it failed", isError: true });
    expect(toolResultToReturn({ content: [], isError: true })).toMatchObject({ isError: true, output: expect.stringMatching(/without a message/) });
  });

  it("turns prompt messages into one message, showing roles only when needed", () => {
    expect(promptToText({ messages: [{ role: "user", content: { type: "text", text: "hi" } }] })).toBe("hi");
    expect(
      promptToText({
        messages: [
          { role: "user", content: { type: "text", text: "q" } },
          { role: "assistant", content: { type: "text", text: "a" } },
        ],
      }),
    ).toBe("[user]\nq\n\n[assistant]\na");
  });
});

describe("prompt arguments", () => {
  const specs = [{ name: "city", required: true }, { name: "state" }];
  it("reads key=value pairs and positional words; the last argument takes the rest of the line", () => {
    expect(parsePromptArgs('city="New York" state=NY', specs)).toEqual({ city: "New York", state: "NY" });
    expect(parsePromptArgs("Paris", specs)).toEqual({ city: "Paris" });
    expect(parsePromptArgs("Austin Texas is big", specs)).toEqual({ city: "Austin", state: "Texas is big" });
    expect(parsePromptArgs("some long text", [{ name: "text" }])).toEqual({ text: "some long text" });
  });
  it("says which required argument is missing", () => {
    expect(() => parsePromptArgs("", specs)).toThrow("missing required argument city; usage: <city> [state]");
    expect(argumentHint(specs)).toBe("<city> [state]");
  });
});

describe("elicitation answers", () => {
  it("accepts with the schema's defaults when every required field has one", () => {
    const answer = answerWithDefaults({
      requestedSchema: {
        properties: { name: { default: "John Doe" }, age: { default: 30 }, ok: { default: true }, free: {} },
        required: ["name"],
      },
    });
    expect(answer).toEqual({ action: "accept", content: { name: "John Doe", age: 30, ok: true } });
  });
  it("declines when a required field has no default, and for URL mode", () => {
    expect(answerWithDefaults({ requestedSchema: { properties: { name: {} }, required: ["name"] } })).toEqual({ action: "decline" });
    expect(answerWithDefaults({ mode: "url" })).toEqual({ action: "decline" });
  });
});

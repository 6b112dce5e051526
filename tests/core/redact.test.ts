/** Redaction: secrets never reach a record, by key, by shape or by env value; long values are shortened. */
import { afterEach, describe, expect, test } from "vitest";
import { REDACTED, forgetEnvSecrets, isSecretKey, redactBatch, redactString, summarize, summaryJson } from "../../kit/text/redact.js";

const saved: Record<string, string | undefined> = {};
/**
 * Set (or with undefined, remove) a variable. By default the redactor is told to list the variables
 * again, as the host does after startup; `{ live: true }` leaves it to notice the change by itself.
 */
function setEnv(name: string, value: string | undefined, { live = false } = {}): void {
  if (!(name in saved)) saved[name] = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  if (!live) forgetEnvSecrets();
}
/** Longer than the redactor trusts its list of variable names (ENV_RELIST_MS, 50 ms). */
const relisted = () => new Promise((r) => setTimeout(r, 80));
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
    delete saved[k];
  }
});

describe("secret keys", () => {
  test.each([
    "apiKey", "api_key", "x-api-key", "APIKey", "XApiKey", "OPENAI_API_KEY", "token", "accessToken", "refresh_token", "GITHUB_TOKEN",
    "password", "db_pass", "passwd", "Authorization", "proxy-authorization", "cookie", "Set-Cookie", "client_secret",
    "AWS_SECRET_ACCESS_KEY", "privateKey", "private_key", "sessionId", "credentials", "auth", "x-auth-token", "passphrase",
  ])("%s is a secret key", (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  test.each(["author", "authorName", "maxTokens", "passthrough", "keyword", "key", "path", "session", "compass", "tokenizer", "description"])(
    "%s is not a secret key",
    (key) => {
      expect(isSecretKey(key)).toBe(false);
    },
  );

  test("values under secret keys are replaced at any depth, in objects and arrays", () => {
    const out = summarize({
      apiKey: "abc",
      nested: { headers: { Authorization: "Bearer abcdefghijkl", "X-Trace": "t1" }, list: [{ password: 12345 }] },
      author: "Ada",
      empty: { token: "" },
    });
    expect(out).toEqual({
      apiKey: REDACTED,
      nested: { headers: { Authorization: REDACTED, "X-Trace": "t1" }, list: [{ password: REDACTED }] },
      author: "Ada",
      empty: { token: "" },
    });
  });
});

describe("secret shapes in strings", () => {
  test.each([
    ["curl -H 'Authorization: Bearer xyz123abc456' https://api", "curl -H 'Authorization: Bearer [REDACTED]' https://api"],
    ["bearer xyz123abc456", "bearer [REDACTED]"],
    ["Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [REDACTED]"],
    ["key sk-proj-abcdefghijklmnop1234", "key [REDACTED]"],
    ["sk-ant-api03-abcdefghijklmnop_QRST", "[REDACTED]"],
    ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]"],
    ["github_pat_11ABCDEFG0123456789_abcdefghijkl", "[REDACTED]"],
    ["slack xoxb-123456789012-abcdefghij", "slack [REDACTED]"],
    ["AKIAIOSFODNN7EXAMPLE", "[REDACTED]"],
    ["jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "jwt [REDACTED]"],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- after", "[REDACTED] after"],
    ["psql postgres://admin:hunter2@db.local:5432/app", "psql postgres://admin:[REDACTED]@db.local:5432/app"],
  ])("%j", (input, expected) => {
    expect(redactString(input)).toBe(expected);
  });

  test("ordinary text is left alone", () => {
    for (const s of ["a basic example of the API", "npm test -- --reporter basic", "risk-assessment", "https://example.com/path", "sk-short"]) {
      expect(redactString(s)).toBe(s);
    }
  });
});

describe("values of secret-named env vars", () => {
  test.each(["MY_SERVICE_KEY", "CI_DEPLOY_TOKEN", "STRIPE_SECRET", "DB_PASSWORD"])("the value of %s is replaced by its name", (name) => {
    setEnv(name, "value-of-the-secret-42");
    expect(redactString("run --with value-of-the-secret-42 now")).toBe(`run --with [REDACTED:${name}] now`);
    expect(summarize({ cmd: "x value-of-the-secret-42" })).toEqual({ cmd: `x [REDACTED:${name}]` });
  });

  test("env values that are short, or in vars with ordinary names, are kept", () => {
    setEnv("AGENT_TEST_TOKEN_SHORT", "abc");
    setEnv("AGENT_TEST_PLAIN", "value-of-a-plain-var");
    expect(redactString("abc value-of-a-plain-var")).toBe("abc value-of-a-plain-var");
  });

  test("a changed value of a known secret env var is picked up at once", () => {
    setEnv("AGENT_TEST_TOKEN", "first-secret-value");
    expect(redactString("first-secret-value")).toBe("[REDACTED:AGENT_TEST_TOKEN]");
    setEnv("AGENT_TEST_TOKEN", "second-secret-value", { live: true });
    expect(redactString("second-secret-value")).toBe("[REDACTED:AGENT_TEST_TOKEN]");
  });

  test("a secret env var added while running is picked up once the names are listed again (within 50 ms)", async () => {
    expect(redactString("brand-new-secret")).toBe("brand-new-secret");
    setEnv("AGENT_TEST_NEW_SECRET", "brand-new-secret", { live: true });
    await relisted();
    expect(redactString("brand-new-secret")).toBe("[REDACTED:AGENT_TEST_NEW_SECRET]");
  });

  test("a secret env var that replaces another (same number of variables) is picked up", async () => {
    setEnv("AGENT_TEST_PLAIN_SWAP", "x");
    expect(redactString("swapped-in-secret")).toBe("swapped-in-secret");
    setEnv("AGENT_TEST_PLAIN_SWAP", undefined, { live: true });
    setEnv("AGENT_TEST_SWAP_TOKEN", "swapped-in-secret", { live: true });
    await relisted();
    expect(redactString("swapped-in-secret")).toBe("[REDACTED:AGENT_TEST_SWAP_TOKEN]");
  });

  test("a batch reads the env once, when it runs", () => {
    setEnv("AGENT_TEST_BATCH_TOKEN", "batch-secret-one");
    expect(redactBatch(() => [redactString("batch-secret-one"), summarize({ a: "x batch-secret-one" })])).toEqual([
      "[REDACTED:AGENT_TEST_BATCH_TOKEN]",
      { a: "x [REDACTED:AGENT_TEST_BATCH_TOKEN]" },
    ]);
    setEnv("AGENT_TEST_BATCH_TOKEN", "batch-secret-two", { live: true });
    expect(redactBatch(() => redactString("batch-secret-two"))).toBe("[REDACTED:AGENT_TEST_BATCH_TOKEN]");
  });

  test("the longest value wins when one contains another", () => {
    setEnv("AGENT_TEST_A_KEY", "abcdef");
    setEnv("AGENT_TEST_B_KEY", "abcdefghij");
    expect(redactString("abcdefghij")).toBe("[REDACTED:AGENT_TEST_B_KEY]");
  });
});

describe("shortening", () => {
  test("long strings keep their head and say how much was dropped", () => {
    expect(summarize("x".repeat(250))).toBe(`${"x".repeat(200)}…(+50 chars)`);
    expect(summarize({ content: "y".repeat(1000) }, { maxString: 10 })).toEqual({ content: `${"y".repeat(10)}…(+990 chars)` });
  });

  test("long arrays, many keys, deep nesting and a huge total are bounded", () => {
    expect(summarize(Array.from({ length: 25 }, (_, i) => i))).toEqual([...Array.from({ length: 20 }, (_, i) => i), "…(+5 items)"]);
    const wide = Object.fromEntries(Array.from({ length: 22 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(summarize(wide) as object)).toHaveLength(21);
    expect((summarize(wide) as Record<string, unknown>)["…"]).toBe("+2 keys");
    expect(summarize({ a: { b: { c: { d: { e: 1 } } } } })).toEqual({ a: { b: { c: { d: "[object]" } } } });
    const big = summarize(Array.from({ length: 20 }, () => "z".repeat(200)));
    expect(typeof big).toBe("string");
    expect(big as string).toMatch(/…\(\+\d+ chars\)$/);
    expect((big as string).length).toBeLessThan(2100);
  });

  test("secrets are redacted before shortening, so a cut never exposes part of one", () => {
    const out = summarize(`${"a".repeat(190)} ghp_abcdefghijklmnopqrstuvwxyz0123456789`) as string;
    expect(out).not.toContain("ghp_");
  });

  test("non-JSON values become strings; primitives pass through", () => {
    expect(summarize(42)).toBe(42);
    expect(summarize(null)).toBe(null);
    expect(summarize(true)).toBe(true);
    expect(typeof summarize(() => 1)).toBe("string");
  });
});

describe("summaryJson (what a record holds)", () => {
  class Point {
    constructor(readonly x = 1) {}
  }
  const bare = Object.assign(Object.create(null) as object, { a: 1, b: "two" });
  test.each([
    ["a flat object", { message: "hello", n: 3, ok: true, none: null, skipped: undefined }],
    ["NaN and infinities", { a: NaN, b: Infinity }],
    ["a null-prototype object", bare],
    ["a long string", { s: "x".repeat(250) }],
    ["a secret key", { apiKey: "abc", token: "" }],
    ["a secret shape", { h: "Bearer abcdefghijkl" }],
    ["nesting", { nested: { a: 1 }, list: [1, 2] }],
    ["many keys", Object.fromEntries(Array.from({ length: 22 }, (_, i) => [`k${i}`, i]))],
    ["a huge total", Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, "y".repeat(190)]))],
    ["a class instance", new Point()],
    ["toJSON", { toJSON: () => "replaced", a: 1 }],
    ["an array", ["a", "b"]],
    ["a string", "just text with ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["a number", 42],
    ["escapes", { q: 'he said "hi"\n', e: "😀", lone: "\ud800" }],
    ["a list of names", { kind: "tool", count: 3, names: ["read_file", "grep", "mcp__github__list_issues"] }],
    ["a list past maxItems", { names: Array.from({ length: 21 }, (_, i) => `tool_${i}`) }],
    ["a list holding an object", { list: [1, { a: 1 }] }],
    ["a list holding a secret shape", { names: ["ok", "Bearer abcdefghijkl"] }],
    ["a list holding a long string", { names: ["z".repeat(250)] }],
    ["a sparse list with NaN", { list: [1, , NaN, undefined] }],
  ])("%s: the same text as JSON.stringify(summarize(value))", (_what, value) => {
    expect(summaryJson(value)).toBe(JSON.stringify(summarize(value)));
  });

  test("an env secret inside a flat object is redacted", () => {
    setEnv("AGENT_TEST_FLAT_TOKEN", "flat-secret-value");
    expect(summaryJson({ cmd: "use flat-secret-value" })).toBe('{"cmd":"use [REDACTED:AGENT_TEST_FLAT_TOKEN]"}');
    expect(summaryJson({ names: ["a", "flat-secret-value"] })).toBe('{"names":["a","[REDACTED:AGENT_TEST_FLAT_TOKEN]"]}');
  });
});

describe("secrets a plugin declares, and short keys", () => {
  test("a declared value is redacted under any key, in any string", async () => {
    const { addSecret, redactString: redact } = await import("../../kit/text/redact.js");
    addSecret("hunter2-but-longer", "mcpServers.db.env.DB_PASS");
    expect(redact("connect with hunter2-but-longer now")).toBe("connect with [REDACTED:mcpServers.db.env.DB_PASS] now");
    addSecret("abc", "too short to be a secret");
    expect(redact("abc abc")).toBe("abc abc");
  });

  test.each([
    ["sk-abc123def", "[REDACTED]"],
    ["sk-ant-api03-abcdefghijklmnop", "[REDACTED]"],
    ["token sk-proj-1a2b3c end", "token [REDACTED] end"],
    ["sk-learn is a library", "sk-learn is a library"],
    ["use pk-tests here", "use pk-tests here"],
  ])("%s", async (input, expected) => {
    const { redactString: redact } = await import("../../kit/text/redact.js");
    expect(redact(input)).toBe(expected);
  });
});

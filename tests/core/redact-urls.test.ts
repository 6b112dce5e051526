/**
 * Credentials in URLs: a query or fragment parameter named like a secret (`?token=`, `&api_key=`,
 * `#access_token=`, `sig=`, `X-Amz-Signature=`, `key=`, `password=`...) and userinfo (`user:pass@`, a
 * token as the user) are redacted, for the audit log and for the CLI's stderr alike (both use
 * redactString / summarize). Names are kept, so a line still says what was sent; ordinary URLs are not touched.
 */
import { afterEach, describe, expect, test } from "vitest";
import { forgetEnvSecrets, redactString, summarize, summaryJson } from "../../kit/text/redact.js";

describe("secrets in URLs are redacted", () => {
  test.each([
    ["https://api.example.com/v1?token=abc123XYZ&page=2", "https://api.example.com/v1?token=[REDACTED]&page=2"],
    ["https://api.example.com/v1?page=2&access_token=abc123XYZ", "https://api.example.com/v1?page=2&access_token=[REDACTED]"],
    ["curl 'https://maps.example.com/x?q=pizza&api_key=AIzaSyA0123'", "curl 'https://maps.example.com/x?q=pizza&api_key=[REDACTED]'"],
    ["https://maps.example.com/x?apiKey=AIzaSyA0123", "https://maps.example.com/x?apiKey=[REDACTED]"],
    ["https://maps.example.com/x?key=AIzaSyA0123", "https://maps.example.com/x?key=[REDACTED]"],
    ["https://app.example.com/cb#access_token=abc123XYZ&state=s1", "https://app.example.com/cb#access_token=[REDACTED]&state=s1"],
    ["https://app.example.com/cb#id_token=abc.def.ghi", "https://app.example.com/cb#id_token=[REDACTED]"],
    ["https://blob.example.net/c/f?sv=2020-08-04&se=2030&sig=abc%2Bdef%3D", "https://blob.example.net/c/f?sv=2020-08-04&se=2030&sig=[REDACTED]"],
    ["https://s3.example.com/b/k?X-Amz-Credential=AK/2024/us&X-Amz-Signature=deadbeef01", "https://s3.example.com/b/k?X-Amz-Credential=[REDACTED]&X-Amz-Signature=[REDACTED]"],
    ["https://s3.example.com/b/k?X-Amz-Security-Token=FQoGZXIvYXdz", "https://s3.example.com/b/k?X-Amz-Security-Token=[REDACTED]"],
    ["https://storage.example.com/o?X-Goog-Signature=0a1b2c3d", "https://storage.example.com/o?X-Goog-Signature=[REDACTED]"],
    ["https://db.example.com/login?user=ada&password=hunter22", "https://db.example.com/login?user=ada&password=[REDACTED]"],
    ["https://db.example.com/login?user=ada&passwd=hunter22", "https://db.example.com/login?user=ada&passwd=[REDACTED]"],
    ["https://idp.example.com/token?client_id=app&client_secret=s3cr3tvalue", "https://idp.example.com/token?client_id=app&client_secret=[REDACTED]"],
    ["https://api.example.com/?refresh_token=r1r2r3r4", "https://api.example.com/?refresh_token=[REDACTED]"],
    ["https://api.example.com/?secret=abcdef", "https://api.example.com/?secret=[REDACTED]"],
    ["https://api.example.com/?auth=abcdef", "https://api.example.com/?auth=[REDACTED]"],
    ["https://hooks.example.com/x?hmac=abcdef12", "https://hooks.example.com/x?hmac=[REDACTED]"],
    ["https://api.example.com/x;jsessionid=ABCDEF0123", "https://api.example.com/x;jsessionid=[REDACTED]"],
    ["https://api.example.com/x;sessionid=ABCDEF0123", "https://api.example.com/x;sessionid=[REDACTED]"],
    // Several in one string, and in prose.
    ["see https://a.example/?token=t0k3n1 and https://b.example/?sig=s1gn4", "see https://a.example/?token=[REDACTED] and https://b.example/?sig=[REDACTED]"],
    ['{"url":"https://a.example/?api_key=k3yk3y"}', '{"url":"https://a.example/?api_key=[REDACTED]"}'],
    // Userinfo: a password (the user kept), a token as the user.
    ["postgres://admin:hunter2@db.local:5432/app", "postgres://admin:[REDACTED]@db.local:5432/app"],
    ["https://oauth2:glpat-abcdef0123@gitlab.example.com/g/r.git", "https://oauth2:[REDACTED]@gitlab.example.com/g/r.git"],
    ["git clone https://a1b2c3d4e5f6a7b8@github.com/o/r", "git clone https://[REDACTED]@github.com/o/r"],
    ["redis://:p4ssw0rd@cache:6379", "redis://:[REDACTED]@cache:6379"],
  ])("%s", (input, expected) => {
    expect(redactString(input)).toBe(expected);
  });
});

describe("ordinary URLs are left alone", () => {
  test.each([
    "https://example.com/path",
    "https://example.com/search?q=token&page=2",
    "https://example.com/?keyword=hello&sort=asc",
    "https://example.com/?author=ada&maxTokens=5&tokens=3",
    "https://example.com/?monkey=1",
    "ssh://git@github.com/o/r.git",
    "https://jane.doe@example.com/",
    "https://example.com/x?key=",
    "a & b = c",
  ])("%s", (input) => {
    expect(redactString(input)).toBe(input);
  });
});

describe("the audit log's summaries (and a tool line's input) get the same", () => {
  const saved = process.env.MY_SERVICE_TOKEN;
  afterEach(() => {
    if (saved === undefined) delete process.env.MY_SERVICE_TOKEN;
    else process.env.MY_SERVICE_TOKEN = saved;
    forgetEnvSecrets();
  });

  test("a URL under an ordinary key, in a flat record (the fast path) and a nested one", () => {
    const input = { url: "https://api.example.com/v1?token=SECRET123456" };
    expect(summaryJson(input)).toBe('{"url":"https://api.example.com/v1?token=[REDACTED]"}');
    expect(summarize({ request: { args: ["--url", "https://x.example/?api_key=SECRET654321"] } })).toEqual({ request: { args: ["--url", "https://x.example/?api_key=[REDACTED]"] } });
  });

  test("an env secret's value inside a URL is redacted by value, whatever the parameter's name", () => {
    process.env.MY_SERVICE_TOKEN = "envsecret-ABCDEF123456";
    forgetEnvSecrets();
    expect(redactString("https://x.example/?q=envsecret-ABCDEF123456")).toBe("https://x.example/?q=[REDACTED:MY_SERVICE_TOKEN]");
    expect(redactString("https://x.example/?token=envsecret-ABCDEF123456")).toBe("https://x.example/?token=[REDACTED:MY_SERVICE_TOKEN]");
  });
});

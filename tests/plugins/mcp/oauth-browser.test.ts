/**
 * The user's side of a login, as an attacker on the same machine would poke it: a redirect with another
 * state does not end the login (it is refused, and the real one still arrives); only http(s) URLs are
 * opened; on Windows the opener is not cmd (which would read a URL's `&` as a command separator).
 */
import { expect, test } from "vitest";
import { browserCommand, isWebUrl, LoopbackListener } from "../../../plugins/mcp/oauth/browser.js";

test("a redirect with a foreign state is refused and the login goes on waiting for its own", async () => {
  const l = await LoopbackListener.open(0);
  try {
    l.expectedState = "s-ours";
    const code = l.waitForCode(10_000);
    const foreign = await fetch(`${l.redirectUrl}?code=evil&state=s-theirs`);
    expect(foreign.status).toBe(400);
    const ours = await fetch(`${l.redirectUrl}?code=good&state=s-ours&iss=${encodeURIComponent("https://as.example.com")}`);
    expect(ours.status).toBe(200);
    await expect(code).resolves.toBe("good");
    // The redirect's issuer (RFC 9207) is kept for the SDK's mix-up check, not the foreign one's.
    expect(l.issuer).toBe("https://as.example.com");
  } finally {
    l.close();
  }
});

test("only web URLs are opened; the Windows opener takes the URL as one argument", () => {
  expect(isWebUrl("https://auth.example.com/authorize?a=1&b=2")).toBe(true);
  expect(isWebUrl("http://127.0.0.1:3000/x")).toBe(true);
  for (const u of ["file:///etc/passwd", "javascript:alert(1)", "ms-settings:", "not a url", ""]) expect(isWebUrl(u), u).toBe(false);
  expect(browserCommand({}, "win32")).toEqual(["rundll32", "url.dll,FileProtocolHandler"]);
  expect(browserCommand({ BROWSER: "firefox --new-tab:chromium" }, "linux")).toEqual(["firefox", "--new-tab"]);
  expect(browserCommand({}, "linux")).toBeUndefined();
});

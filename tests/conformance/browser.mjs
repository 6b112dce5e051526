#!/usr/bin/env node
// A "browser" for tests: BROWSER="node tests/conformance/browser.mjs" makes `agent mcp login` complete
// on its own. It opens the authorization URL and follows the redirects, as a browser whose user
// already approved would, down to the agent's loopback listener on 127.0.0.1.
const url = process.argv[2];
try {
  const res = await fetch(url, { redirect: "follow" });
  await res.text();
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  process.stderr.write(`browser.mjs: ${err.message}\n`);
  process.exit(1);
}

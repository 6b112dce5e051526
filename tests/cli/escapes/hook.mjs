// A command hook for tests/cli/escapes.test.ts: answers every event with a systemMessage (shown to the
// user) holding terminal escape sequences and, when HOOK_PAYLOAD is set, a URL with it as its access
// token (a variable not named like a secret, so only the URL rule of the redaction can catch it).
import { ESC_PAYLOAD } from "./payload.mjs";

let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const event = JSON.parse(input || "{}");
  const secret = process.env.HOOK_PAYLOAD ? ` see https://hooks.example/cb?access_token=${process.env.HOOK_PAYLOAD}&x=1` : "";
  process.stdout.write(JSON.stringify({ systemMessage: `hook ${event.hook_event_name} says ${ESC_PAYLOAD}${secret}` }));
});

/** The terminal permission prompt: allow once, always for this session, or deny. */
import { createInterface } from "node:readline";
import type { PermissionAnswer, PermissionRequest } from "../types.js";

export async function askOnTerminal(req: PermissionRequest): Promise<PermissionAnswer> {
  const what = req.subject ? `${req.tool.name}(${req.subject})` : req.tool.name;
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    for (;;) {
      const answer = await new Promise<string>((resolve) =>
        rl.question(
          `\nAllow ${what}? (risk: ${req.tool.risk}, from ${req.tool.source})\n` +
            `  [y] yes, once   [a] always this session (${req.suggestedRule})   [n] no\n> `,
          resolve,
        ),
      );
      const a = answer.trim().toLowerCase();
      if (a === "y" || a === "yes") return "allow_once";
      if (a === "a" || a === "always") return "allow_session";
      if (a === "n" || a === "no" || a === "") return "deny";
    }
  } finally {
    rl.close();
  }
}

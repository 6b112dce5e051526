/** `/resume [n | id]`: list this project's saved sessions, or continue one (by its number in the list, or its id). */
import { AgentError, defineCommand } from "../../core/index.js";
import { listSessions } from "./store.js";

const SHOWN = 20;

export default defineCommand({
  name: "resume",
  description: "List saved sessions, or continue one: /resume <number | id>",
  argumentHint: "[number | id]",
  async run(args, { host }) {
    const sessions = listSessions(host.workspace.root);
    const arg = args.trim();
    if (!arg) {
      if (!sessions.length) return "No saved sessions in this project yet.";
      const lines = sessions.slice(0, SHOWN).map((s, i) => {
        const current = s.id === host.session.id ? " (this one)" : "";
        return `${String(i + 1).padStart(2)}. ${s.id.slice(0, 8)}  ${s.updated.slice(0, 16).replace("T", " ")}  ${String(s.turns).padStart(3)} turns  ${s.lastPrompt || "(no prompt)"}${current}`;
      });
      const more = sessions.length > SHOWN ? [`… and ${sessions.length - SHOWN} older (agent sessions lists them all)`] : [];
      return [...lines, ...more, "", "Continue one with /resume <number> or /resume <id>."].join("\n");
    }
    const n = /^\d{1,3}$/.test(arg) ? Number(arg) : undefined;
    const id = n !== undefined && n >= 1 && n <= Math.min(SHOWN, sessions.length) ? sessions[n - 1].id : arg;
    try {
      const r = await host.session.resume(id);
      const last = sessions.find((s) => s.id === r.id)?.lastPrompt;
      return [r.damaged, `Resumed session ${r.id} (${r.messages} messages).${last ? ` Last prompt: ${last}` : ""}`].filter(Boolean).join("\n");
    } catch (err) {
      if (err instanceof AgentError) return err.message;
      throw err;
    }
  },
});

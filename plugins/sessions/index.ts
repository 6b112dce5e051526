/**
 * Sessions: every conversation saved as `.agent/sessions/<id>.jsonl` (0600, in a git-ignored 0700 folder),
 * from what the kernel commits after each step (the `transcript` hook), and loaded again for
 * `session.resume` (`agent --resume`, `-c`, `/resume`, ACP's `session/load`; the `sessionLoad` hook).
 * Config `sessions` (`enabled`, `maxAgeDays`, `maxCount`). `/resume` lists and continues them. The store (listing, finding, reading,
 * pruning) is this plugin's public face for `agent sessions` and `/resume`. Written against the public API.
 */
import { definePlugin, type PluginContext } from "../../core/index.js";
import { hostVersion } from "../../kit/index.js";
import { SessionRecorder } from "./recorder.js";
import resume from "./resume-command.js";

export {
  listSessions,
  findSession,
  readSession,
  sessionsDir,
  sessionFile,
  pruneSessions,
  SESSIONS_DIR,
  DEFAULT_SESSION_MAX_AGE_DAYS,
  DEFAULT_SESSION_MAX_COUNT,
  type SessionSummary,
  type SessionMeta,
  type SessionRecord,
  type LoadedSession,
} from "./store.js";

export default definePlugin({
  name: "sessions",
  // Its `/resume` is one of the host's own controls: it wins a name clash, as the `commands` plugin's do.
  enforce: "pre",
  commands: [resume],
  setup(ctx: PluginContext) {
    const sessions = ctx.config.sessions ?? {};
    const recorder = new SessionRecorder({
      projectRoot: ctx.workspace.root,
      cwd: ctx.host.cwd,
      version: hostVersion(),
      enabled: sessions.enabled !== false,
      limits: { maxAgeDays: sessions.maxAgeDays, maxCount: sessions.maxCount },
      notice: (level, message) => ctx.emit({ type: "notice", level, source: "sessions", message }),
    });
    ctx.hooks.transcript.tap("sessions", (batch) => {
      recorder.commit(batch);
      const file = recorder.file(batch.sessionId);
      return file ? { file } : undefined;
    });
    ctx.hooks.sessionLoad.tap("sessions", (request) => recorder.load(request));
    ctx.hooks.shutdown.tap("sessions", () => recorder.close());
  },
});

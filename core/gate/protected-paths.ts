/**
 * Protected paths: the files that decide what the agent may do, or what runs when it (or git, or Claude
 * Code) starts next. The gate asks about a tool's write to one in every permission mode, and only an
 * allow rule naming exactly that call allows it unasked (see permissions.ts, permit.ts); the audit log and
 * the session transcripts are never written by tools at all.
 *
 * The kernel says where they are for this host: in every workspace root and at any depth in it (a nested
 * project or repository reads its own, and the agent may start there next), the host's audit log, and
 * anywhere, the user's config folders (the agent's, Claude Code's). The names that count there and how a
 * declared write is followed to where it leads are kit's (kit/fs/protected-paths.ts).
 */
import path from "node:path";
import { realTargetOrSelf } from "../../kit/fs/real-path.js";
import type { ProtectedPlaces } from "../../kit/fs/protected-paths.js";
import { claudeUserDir, defaultUserConfigDir } from "../../kit/fs/user-config-dir.js";

export { changesAgentKey, mentionsProtectedName } from "../../kit/fs/protected-paths.js";

/** The places for a workspace's roots and audit log; the user's folders from the environment, now. */
export function protectedPlaces(roots: readonly string[], auditFile: string | undefined): ProtectedPlaces {
  const both = (p: string) => [...new Set([path.resolve(p), realTargetOrSelf(path.resolve(p))])];
  const userDirs = [
    ...both(defaultUserConfigDir()).map((dir) => ({ dir, why: "the user's agent config folder" })),
    ...both(claudeUserDir()).map((dir) => ({ dir, why: "Claude Code's user settings folder" })),
  ];
  return { roots, auditFiles: auditFile ? both(auditFile) : [], userDirs };
}

/** A project command's `allowed-tools` as a part of the folder's trust: named at config time, asked for when it runs. */
import type { TrustItemInput } from "../../core/embed.js";

export function grantPart(found: { name: string; file: string }, allowedTools: readonly string[]): TrustItemInput {
  return { kind: "command allowed-tools", name: `/${found.name}`, file: found.file, value: [...allowedTools], detail: `may use ${allowedTools.join(" ")} without asking, for its turn` };
}

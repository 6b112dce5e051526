/**
 * Folder trust from outside (the attempts and their table: ./fixture.ts): the 4 code-config folders
 * (agent.config.mjs, .ts, .js, .mts), untrusted, each tried on every entry point of COMMANDS (one CLI
 * spawn each): no marker, no canary hit.
 */
import { describe, it } from "vitest";
import { COMMANDS, CODE_CONFIG_FOLDERS, expectNothingRuns, hostileFolders } from "./fixture.js";

const h = hostileFolders();

describe("an untrusted folder: nothing it ships runs, on any command", () => {
  for (const folder of CODE_CONFIG_FOLDERS) {
    it(`${folder}: ${COMMANDS.length} commands run nothing of it and reach no server of it`, () => expectNothingRuns(h, folder), 240_000);
  }
});

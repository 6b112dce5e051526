/** What the last discovery found, per host: read by `agent skills` and `agent doctor`. */
import { definePluginHooks, type PluginHost } from "../../core/index.js";
import type { Discovery } from "./discover.js";

export const skillsReport = definePluginHooks(() => ({ discovery: undefined as Discovery | undefined, disabled: [] as string[] }));

export function getSkillsReport(host: PluginHost) {
  return skillsReport(host);
}

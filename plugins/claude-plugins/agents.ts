/**
 * A plugin's `agents/*.md` (Claude Code's subagent files: YAML frontmatter `name`, `description`,
 * `tools`, `model`…, the body its prompt) as agent-host agent definitions. Registering them runs
 * nothing: the `task` tool that runs a subagent is issue 22's plugin, which will find them in
 * `host.agents` like any plugin's. A file that cannot be read as an agent is reported, the rest load.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { type AgentDefinition } from "../../core/index.js";
import { parseYaml, splitToolList } from "../../kit/index.js";
import { isPlainObject } from "./package.js";

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/;

export function readAgents(plugin: string, files: readonly string[]): { agents: AgentDefinition[]; problems: string[] } {
  const agents: AgentDefinition[] = [];
  const problems: string[] = [];
  for (const file of files) {
    try {
      agents.push(readAgent(plugin, file));
    } catch (err) {
      problems.push(`agent ${path.relative(path.dirname(path.dirname(file)), file)}: ${(err as Error).message}`);
    }
  }
  return { agents, problems };
}

function readAgent(plugin: string, file: string): AgentDefinition {
  const match = FRONTMATTER.exec(readFileSync(file, "utf8"));
  if (!match) throw new Error("no YAML frontmatter (--- name, description ---)");
  const meta = frontmatter(match[1]);
  const name = typeof meta.name === "string" ? meta.name : path.basename(file, ".md");
  const { description, tools, disallowedTools, model, maxTurns, skills, ...rest } = meta;
  return {
    name,
    description: typeof description === "string" ? description : "",
    prompt: match[2].trim(),
    ...(tools !== undefined ? { tools: splitToolList(tools) } : {}),
    ...(disallowedTools !== undefined ? { disallowedTools: splitToolList(disallowedTools) } : {}),
    ...(typeof model === "string" ? { model } : {}),
    ...(typeof maxTurns === "number" ? { maxTurns } : {}),
    ...(skills !== undefined ? { skills: splitToolList(skills) } : {}),
    source: `plugin:${plugin}`,
    path: file,
    meta: rest,
  };
}

/**
 * The frontmatter as YAML, else read as Claude Code reads its agent files: one `key: value` a line, the
 * value everything after the first `: ` (real descriptions hold colons and examples YAML refuses), lines
 * that start with a space continuing the previous value.
 */
function frontmatter(text: string): Record<string, unknown> {
  try {
    const meta = parseYaml(text);
    if (isPlainObject(meta)) return meta;
  } catch {
    // read loosely below
  }
  const out: Record<string, unknown> = {};
  let last: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const key = /^([A-Za-z][\w-]*):\s?(.*)$/.exec(line);
    if (key) {
      last = key[1];
      out[last] = key[2].trim();
    } else if (last && line.trim()) out[last] = `${String(out[last])}\n${line.trim()}`.trim();
  }
  if (!Object.keys(out).length) throw new Error("its frontmatter holds no key: value line");
  return out;
}

/**
 * agent-plugin-example: a plugin for agent-host, written as a third-party package is. Enable it with
 * `agent plugin add agent-plugin-example` (or `plugins: ["example"]` in the project's agent config).
 *
 * - tool `word_count`: words, lines and characters of a text (read-only, so it never asks);
 * - command `/example:review <file>`: asks the model to review a file with the skill below;
 * - skill `example-review` (skills/example-review/SKILL.md, shipped in the package);
 * - a `beforeToolCall` policy: `run_command` calls whose command matches `denyCommands` are refused.
 */
import { defineCommand, definePlugin, defineTool, isCallTo, z } from "agent-host";
import { patternMatcher } from "agent-host/kit";
import { shellSubjects } from "agent-host/kit";

/** The plugin's options, checked by the host before the factory runs: a bad value is a config error naming the key. */
export const optionsSchema = z
  .object({
    /**
     * Commands to refuse, in the syntax of permission rules' parentheses: `*` matches any text, `?` one
     * character, and a trailing `:*` means "these words, then anything" (`git push:*` refuses
     * `git push --force` but not `git pushd`).
     */
    denyCommands: z.array(z.string().min(1)).default(["rm -rf*"]),
  })
  .strict();

export type ExampleOptions = z.output<typeof optionsSchema>;

export const wordCount = defineTool({
  name: "word_count",
  description: "Count the words, lines and characters of a text. Prints e.g. `3 words, 1 line, 5 characters`.",
  risk: "read",
  input: z.object({ text: z.string().describe("The text to count") }),
  run: ({ text }) => {
    const words = text.split(/\s+/).filter(Boolean).length;
    const lines = text === "" ? 0 : text.split(/\r?\n/).length;
    const characters = [...text].length; // code points, not UTF-16 units
    return { output: `${count(words, "word")}, ${count(lines, "line")}, ${count(characters, "character")}`, structured: { words, lines, characters } };
  },
});

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

export const review = defineCommand({
  name: "example:review",
  description: "Ask the model to review a file (uses the example-review skill)",
  argumentHint: "<file>",
  run: (args) => {
    const file = args.trim();
    if (!file) return { output: "Usage: /example:review <file>" };
    return {
      prompt:
        `Review the file ${file}. Follow the example-review skill: read the file with read_file, ` +
        "then report problems by severity with line numbers and a concrete fix for each. Do not edit the file.",
    };
  },
});

/** One space between words, so `rm  -rf x` cannot slip past `rm -rf*`. */
function normalize(command: string): string {
  return command.trim().replace(/\s+/g, " ");
}

/** The `command` of a `run_command` input, or undefined: the hook sees any tool's input, typed as unknown. */
function commandOf(input: unknown): string | undefined {
  const command = (input as { command?: unknown } | null)?.command;
  return typeof command === "string" ? command : undefined;
}

export default definePlugin(optionsSchema, (options) => {
  const rules = options.denyCommands.map((pattern) => ({ pattern, matches: patternMatcher(normalize(pattern)) }));
  return {
    name: "example",
    version: "1.0.0",
    tools: [wordCount],
    commands: [review],
    // Relative to the package folder: the skills plugin reads skills/*/SKILL.md from the installed package.
    skillDirs: ["skills"],
    async beforeToolCall(call) {
      if (!isCallTo(call, "run_command")) return;
      const command = commandOf(call.input);
      if (command === undefined) return;
      // Each part of `a && b | c` separately: chaining must not hide a refused command.
      for (const part of (await shellSubjects(command)).map(normalize)) {
        const rule = rules.find((r) => r.matches(part));
        if (rule) return { deny: `plugin example refuses "${part}" (denyCommands: "${rule.pattern}")` };
      }
    },
  };
});

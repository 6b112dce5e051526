/** The two agents every host has (a project's or the user's file of the same name replaces one). */
import type { AgentDefinition } from "../../core/index.js";

export const BUILTIN_AGENTS: readonly AgentDefinition[] = [
  {
    name: "general-purpose",
    description:
      "General-purpose agent for researching complex questions, searching for code and carrying out multi-step tasks. Use it when a search or a task would take several rounds of reading, so that only its answer comes back.",
    prompt: [
      "You are an agent working for another agent, which gave you the task below. Complete it with the tools you have,",
      "then answer with what you found or did: concise, complete, with file paths and line numbers where they help.",
      "Your answer is all the other agent sees of your work.",
    ].join("\n"),
    source: "builtin",
  },
  {
    name: "explore",
    description:
      "Fast read-only agent for exploring a codebase: finding files by pattern, searching code for keywords, answering questions about how the code works. Say how thorough it should be (quick, medium, very thorough).",
    prompt: [
      "You are a read-only agent exploring a codebase for another agent. Find what the task asks with the search and",
      "read tools you have; you cannot change anything. Answer concisely with what you found, citing file paths and",
      "line numbers. Your answer is all the other agent sees of your work.",
    ].join("\n"),
    source: "builtin",
    meta: { readOnly: true },
  },
];

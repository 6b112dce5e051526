/**
 * What the gate judged about a call's paths, kept for the tool that runs the call. A path's subjects
 * are fixed the first time the gate looks at an input (see permit.ts): the path as spelt and where it
 * then led. The tool opens only a file whose real path is among them, so a symlink swapped between the
 * permission decision and the open cannot take the call where the rules did not look.
 */
import path from "node:path";
import { projectPath } from "../../kit/rules/path-pattern.js";
import { realPath } from "../host/workspace.js";

export interface JudgedPaths {
  /** The subjects as rules saw them (relative to the project root, or absolute outside it). */
  readonly subjects: readonly string[];
  /** Whether `abs` is one of them (made absolute): a tool's real path must be. */
  includes(abs: string): boolean;
  /** Whether a deny or ask rule of this tool names `abs` (a walk leaves such files and folders out). */
  excludes(abs: string): boolean;
}

/** Keyed by the gate's own copy of the input, which nobody changes after validation. */
const judged = new WeakMap<object, JudgedPaths>();

/** The paths the gate judged for this input (the object the tool's `run` receives); undefined when none were. */
export function judgedPaths(input: unknown): JudgedPaths | undefined {
  return typeof input === "object" && input !== null ? judged.get(input) : undefined;
}

/** Record the judged subjects of `input`; the first record stays (a later look cannot move the judgment). */
export function recordJudged(input: unknown, root: string, subjects: readonly string[], excludes: (abs: string) => boolean): JudgedPaths | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const known = judged.get(input);
  if (known) return known;
  const paths = new Set(subjects.map((s) => path.resolve(root, s)));
  const record: JudgedPaths = Object.freeze({ subjects: Object.freeze([...subjects]), includes: (abs: string) => paths.has(abs), excludes });
  judged.set(input, record);
  return record;
}

/**
 * A path tool's subjects: each path as spelt (normalised) and, when it differs, where it leads (every
 * symlink followed). A deny or ask rule needs one to match, an allow rule must cover all: a symlink can
 * make a call less allowed, never more. A path that cannot be resolved (a loop) keeps its spelling; the
 * tool refuses it when it runs.
 */
export function pathSubjects(root: string, paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const spelt = projectPath(root, p);
    if (!out.includes(spelt)) out.push(spelt);
    let real: string | undefined;
    try {
      real = projectPath(root, realPath(path.resolve(root, p)));
    } catch {
      real = undefined;
    }
    if (real !== undefined && !out.includes(real)) out.push(real);
  }
  return out;
}

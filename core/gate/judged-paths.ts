/**
 * What the gate judged about a call's paths, kept for the tool that runs the call. A path's subjects
 * are fixed the first time the gate looks at an input (see permit.ts): the path as spelt and where it
 * then led. The tool opens only a file whose real path is among them, so a symlink swapped between the
 * permission decision and the open cannot take the call where the rules did not look.
 */
import path from "node:path";

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

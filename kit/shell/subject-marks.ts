/**
 * Marks among a call's permission subjects. A subject that begins with a NUL byte is never a command
 * or a path a model sends (a NUL cannot be in either): it is a mark the gate reads.
 *
 * - `UNCERTAIN`: part of the call is only known when it runs; no allow rule can cover it.
 * - opaque (`opaqueMark(reason)`): what runs cannot be judged at all (a computed command word, a nested
 *   shell with computed text); uncertain too, and denied when any deny rule names the tool, in every mode.
 * - deny-only (`denyOnly(subject)`): a form deny and ask rules also see, which allow rules need not cover
 *   (a command with its wrapper or `VAR=` prefix stripped, a command a script file the line runs holds).
 */
const NUL = "\u0000";
export const UNCERTAIN = `${NUL}uncertain`;
const OPAQUE = `${NUL}opaque:`;
const DENY_ONLY = `${NUL}deny:`;

export function opaqueMark(reason: string): string {
  return OPAQUE + reason;
}

export function denyOnly(subject: string): string {
  return DENY_ONLY + subject;
}

export function isMark(subject: string): boolean {
  return subject.startsWith(NUL);
}

/** The subjects allow rules must cover: the unmarked ones, and the uncertainty marks (which nothing covers). */
export function allowSubjects(subjects: readonly string[]): string[] {
  return subjects.filter((s) => !s.startsWith(DENY_ONLY));
}

/** The subjects deny and ask rules see: every unmarked one and every deny-only form. */
export function denySubjects(subjects: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of subjects) {
    if (!isMark(s)) out.push(s);
    else if (s.startsWith(DENY_ONLY)) out.push(s.slice(DENY_ONLY.length));
  }
  return out;
}

/** The subjects a person is shown (and exact rules are made of): the unmarked ones. */
export function plainSubjects(subjects: readonly string[]): string[] {
  return subjects.filter((s) => !isMark(s));
}

/** Whether part of the call cannot be read off its text (uncertain or opaque). */
export function isUncertain(subjects: readonly string[]): boolean {
  // Any mark but a deny-only form: one this version does not know fails closed.
  return subjects.some((s) => isMark(s) && !s.startsWith(DENY_ONLY));
}

/** Why what the call runs cannot be judged, or undefined when it can. */
export function opaqueReason(subjects: readonly string[]): string | undefined {
  const mark = subjects.find((s) => s.startsWith(OPAQUE));
  return mark?.slice(OPAQUE.length);
}

/** The one subject a call is shown by (`tool(subject)`): its only plain one, when no part of it is uncertain. */
export function soleSubject(subjects: readonly string[] | undefined): string | undefined {
  if (!subjects || isUncertain(subjects)) return undefined;
  const plain = plainSubjects(subjects);
  return plain.length === 1 ? plain[0] : undefined;
}

/**
 * Commands that run another command (`env -i rm f`, `timeout 5 rm f`, `xargs rm`, `find -exec rm {} ;`):
 * the one table of them, with how each takes its options, so the wrapped command is judged too. The
 * README's rule section lists them from here.
 */
import type { Word } from "./words.js";

export interface WrapperSpec {
  /** Options whose value is the next word (or joined: `-n5`, `--adjustment=5`). */
  withValue?: readonly string[];
  /** Options after which nothing is run (`command -v rm` only prints). */
  noRun?: readonly string[];
  /** Operands before the command (`timeout DURATION`, `chrt PRIORITY`, `flock FILE`). */
  operands?: number;
  /** `NAME=value` words before the command (`env A=1 rm`, `sudo A=1 rm`). */
  assignments?: boolean;
  /** Options whose value is a shell command line (`flock -c 'rm f'`, `su -c`, `script -c`). */
  scriptOptions?: readonly string[];
  /** Options that make the command computed when it runs (`env -S 'rm f'` splits a string into words). */
  opaqueOptions?: readonly string[];
  /** The command words are joined and run by `sh -c` (watch), unless one of these options is given. */
  joinedUnless?: readonly string[];
  /** Options that stand for a number (`nice -10`). */
  numericFlag?: boolean;
  /** Changes nothing a rule is about: allow rules judge only the wrapped command (deny rules still see both). */
  transparent?: boolean;
  /** Without a command, it runs a shell that reads its input (`doas -s`, `su`): computed. */
  shellWithoutCommand?: boolean;
}

export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    withValue: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user"],
    noRun: ["-l", "-v", "-k", "-K", "-V", "-e", "--list", "--validate", "--reset-timestamp", "--remove-timestamp", "--version", "--edit", "--help"],
    assignments: true,
    shellWithoutCommand: false,
  },
  doas: { withValue: ["-u", "-C"], shellWithoutCommand: true },
  env: {
    withValue: ["-u", "--unset", "-C", "--chdir", "-P", "-a", "--argv0"],
    opaqueOptions: ["-S", "--split-string"],
    assignments: true,
  },
  command: { noRun: ["-v", "-V"], transparent: true },
  builtin: { transparent: true },
  exec: { withValue: ["-a"], transparent: true },
  nice: { withValue: ["-n", "--adjustment"], numericFlag: true, transparent: true },
  nohup: { transparent: true },
  time: { withValue: ["-f", "-o", "--format", "--output"], transparent: true },
  timeout: { withValue: ["-s", "-k", "--signal", "--kill-after"], operands: 1, transparent: true },
  setsid: { transparent: true },
  stdbuf: { withValue: ["-i", "-o", "-e", "--input", "--output", "--error"], transparent: true },
  ionice: { withValue: ["-c", "-n", "--class", "--classdata"], noRun: ["-p", "--pid", "-P", "--pgid", "-u", "--uid"], transparent: true },
  chrt: { withValue: ["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"], noRun: ["-p", "--pid", "-m", "--max"], operands: 1, transparent: true },
  taskset: { noRun: ["-p", "--pid"], operands: 1, transparent: true },
  flock: { withValue: ["-w", "-E", "--timeout", "--wait", "--conflict-exit-code"], scriptOptions: ["-c", "--command"], operands: 1, transparent: true },
  watch: { withValue: ["-n", "--interval", "-q", "--equexit"], joinedUnless: ["-x", "--exec"], transparent: true },
  unbuffer: { transparent: true },
  caffeinate: { withValue: ["-t", "-w"], transparent: true },
  xargs: {
    withValue: ["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--max-lines", "--replace", "--eof", "--process-slot-var"],
  },
  su: { withValue: ["-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"], scriptOptions: ["-c", "--command"], operands: 1, shellWithoutCommand: true },
  runuser: { withValue: ["-u", "--user", "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w"], scriptOptions: ["-c", "--command"] },
  script: { withValue: ["-t", "--timing", "-O", "--log-out", "-I", "--log-in", "-B", "--log-io", "-T", "--log-timing", "-m", "--logging-format", "-E", "--echo"], scriptOptions: ["-c", "--command"], operands: 0 },
  chroot: { withValue: ["--userspec", "--groups"], operands: 1, shellWithoutCommand: true },
  strace: { withValue: ["-e", "-o", "-p", "-s", "-u", "-E", "-I", "-b", "-a", "-O", "-S", "-P", "-X"] },
  ltrace: { withValue: ["-e", "-o", "-p", "-s", "-u", "-a", "-A", "-D", "-F", "-l", "-n"] },
  valgrind: { withValue: [] },
  fakeroot: { withValue: ["-l", "--lib", "--faked", "-s", "-i", "-b"] },
  unshare: { withValue: ["-S", "--setuid", "-G", "--setgroups", "-R", "--root", "-w", "--wd", "--map-user", "--map-group", "--propagation"] },
  nsenter: { withValue: ["-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "--root", "-w", "--wd"] },
  firejail: {},
  "dbus-run-session": { withValue: ["--config-file", "--dbus-daemon"] },
  "xvfb-run": { withValue: ["-n", "--server-num", "-s", "--server-args", "-e", "--error-file", "-f", "--auth-file", "-p", "--xauth-protocol"] },
  catchsegv: {},
  parallel: { withValue: ["-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "-d", "--delimiter", "-I", "-L", "-n", "-N", "--joblog", "--results", "--tmpdir", "--timeout", "--colsep"], joinedUnless: [] },
  busybox: {},
  toybox: {},
};

/** Shells: `-c` takes a command line, an operand is a script file, neither means the input is read. */
export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish"]);
/** Shell options whose value is the next word. */
export const SHELL_VALUE_OPTIONS: ReadonlySet<string> = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);

/** Interpreters that run code given inline (`python -c`, `node -e`, `awk 'BEGIN{system(…)}'`): a rule on another command never sees inside them. */
export const INTERPRETERS: ReadonlySet<string> = new Set([
  "python", "python2", "python3", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "luajit",
  "awk", "gawk", "mawk", "nawk", "Rscript", "tclsh", "osascript", "pwsh", "julia",
]);

/** What a wrapper leads to. */
export type Unwrapped =
  | { kind: "none" }
  | { kind: "command"; words: Word[]; assignments: Word[] }
  | { kind: "script"; script: Word }
  | { kind: "opaque"; reason: string };

/** The command `spec` (the wrapper `name`) runs with these arguments. */
export function unwrap(name: string, spec: WrapperSpec, args: Word[]): Unwrapped {
  const assignments: Word[] = [];
  let operands = spec.operands ?? 0;
  let joined = spec.joinedUnless !== undefined;
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    if (!w.literal) return { kind: "opaque", reason: `\`${w.raw}\` in \`${name}\` is computed when it runs: it may be the command` };
    const v = w.value;
    if (v === "--") return rest(name, args.slice(i + 1 + operands), assignments, joined);
    if (v.startsWith("-") && v.length > 1) {
      const opt = option(spec, v, args[i + 1]);
      if (opt.kind !== "flag") {
        if (opt.kind === "value") i += opt.skip;
        else return opt.result;
        continue;
      }
      if (spec.joinedUnless?.includes(v)) joined = false;
      continue;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) {
      assignments.push(w);
      continue;
    }
    if (operands > 0) {
      operands--;
      continue;
    }
    return rest(name, args.slice(i), assignments, joined);
  }
  return spec.shellWithoutCommand ? { kind: "opaque", reason: `\`${name}\` without a command runs a shell that reads its input` } : { kind: "none" };
}

type OptionOutcome = { kind: "flag" } | { kind: "value"; skip: number } | { kind: "done"; result: Unwrapped };

/** One option word of a wrapper (`--name[=v]`, or a cluster of short ones: `-qc CMD`, `-iu root`). */
function option(spec: WrapperSpec, v: string, next: Word | undefined): OptionOutcome {
  if (spec.numericFlag && /^-\d+$/.test(v)) return { kind: "flag" };
  if (v.startsWith("--")) {
    const eq = v.indexOf("=");
    return oneOption(spec, eq < 0 ? v : v.slice(0, eq), eq < 0 ? undefined : v.slice(eq + 1), next);
  }
  for (let i = 1; i < v.length; i++) {
    const out = oneOption(spec, `-${v[i]}`, i + 1 < v.length ? v.slice(i + 1) : undefined, next);
    if (out.kind !== "flag") return out;
  }
  return { kind: "flag" };
}

/** `name`, with its value joined to it (`inline`) or else in `next`. */
function oneOption(spec: WrapperSpec, name: string, inline: string | undefined, next: Word | undefined): OptionOutcome {
  if (spec.noRun?.includes(name)) return { kind: "done", result: { kind: "none" } };
  if (spec.opaqueOptions?.includes(name)) return { kind: "done", result: { kind: "opaque", reason: `\`${name}\` makes the command from a string when it runs` } };
  if (spec.scriptOptions?.includes(name)) {
    const script = inline !== undefined ? { raw: inline, value: inline, literal: true } : next;
    return { kind: "done", result: script ? { kind: "script", script } : { kind: "none" } };
  }
  if (spec.withValue?.includes(name)) return { kind: "value", skip: inline !== undefined ? 0 : 1 };
  return { kind: "flag" };
}

function rest(name: string, words: Word[], assignments: Word[], joined: boolean): Unwrapped {
  if (!words.length) return { kind: "none" };
  if (!joined) return { kind: "command", words, assignments };
  if (words.some((w) => !w.literal)) return { kind: "opaque", reason: `\`${name}\` runs its words through a shell, and some are computed when it runs` };
  const value = words.map((w) => w.value).join(" ");
  return { kind: "script", script: { raw: value, value, literal: true } };
}

/** The commands `find … -exec CMD {} ;` (`-execdir`, `-ok`, `-okdir`) runs; `{}` is computed. */
export function findCommands(args: Word[]): Word[][] {
  const out: Word[][] = [];
  for (let i = 0; i < args.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[i].value) || !args[i].literal) continue;
    const cmd: Word[] = [];
    for (i++; i < args.length && !(args[i].literal && (args[i].value === ";" || args[i].value === "+")); i++) cmd.push(placeholder(args[i], ["{}"]));
    if (cmd.length) out.push(cmd);
  }
  return out;
}

/** The replacement strings an `xargs` line uses (`-I R`, `--replace[=R]`, `-i[R]`), whose words are computed. */
export function xargsPlaceholders(args: Word[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i].value;
    if (v === "-I" && args[i + 1]) out.push(args[i + 1].value);
    else if (v.startsWith("-I") && v.length > 2) out.push(v.slice(2));
    else if (v === "-i" || v === "--replace") out.push("{}");
    else if (v.startsWith("-i") && v.length > 2) out.push(v.slice(2));
    else if (v.startsWith("--replace=")) out.push(v.slice("--replace=".length));
  }
  return out;
}

/** A word that holds a placeholder its wrapper fills in when it runs is computed. */
export function placeholder(w: Word, marks: readonly string[]): Word {
  return w.literal && marks.some((m) => m && w.value.includes(m)) ? { ...w, literal: false } : w;
}

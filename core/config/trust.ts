/**
 * Folder trust: what a folder ships (code config, plugins, hooks, servers, rules that widen) applies only
 * once the user trusted that folder, and only the parts it had then: a part added later is held back until
 * trusted again. This is the decision's use (what is admitted, what is reported); the decisions themselves,
 * kept in the user's config folder with the parts' digests, are read and written by kit/fs/trust-store.ts.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileDigest, itemDigest, trustRecordFor } from "../../kit/fs/trust-store.js";
import { realFolder } from "../../kit/fs/real-path.js";

/** One part of a folder that would run code or widen what the agent may do. */
export interface TrustItem {
  /** What it is, e.g. `config code`, `plugin`, `allow rule`, `hooks`, `MCP server`. */
  readonly kind: string;
  /** Which one: a rule, a server's name, a hook event. */
  readonly name: string;
  /** The file that holds it. */
  readonly file: string;
  /** What it would do, shown when asking: a command line, a URL. */
  readonly detail?: string;
}

/** A part as a plugin names it to `ConfigEnv.trust.admit`: its value decides whether it changed since the decision. */
export interface TrustItemInput extends TrustItem {
  /** The part's whole value (a server entry, a hook list); any change to it is a new part. */
  readonly value: unknown;
}

export type TrustState = "trusted" | "untrusted" | "changed";

/** What `agent doctor` and the CLI say about a folder's trust. */
export interface TrustReport {
  /** The folder the decision is about (the project root, real path). */
  readonly folder: string;
  /** `changed`: trusted, but with parts added since; those are held back. */
  readonly state: TrustState;
  /** Why: `AGENT_TRUST`, the host's option, the user's decision for this folder or for a parent, or none. */
  readonly source: "env" | "option" | "folder" | "parent" | "none";
  /** The trusted folder that decided (this one or a parent). */
  readonly trustedFolder?: string;
  /** Every widening part seen, admitted or not. */
  readonly items: readonly TrustItem[];
  /** Parts that were not loaded. */
  readonly skipped: readonly TrustItem[];
}

/** A folder's trust as plugins see it (`ctx.trust`, `ConfigEnv.trust`). */
export interface FolderTrustView {
  /** The folder is trusted (parts added since the decision may still be held back: see `admit`). */
  readonly trusted: boolean;
  /** The project root the decision is about. */
  readonly folder: string;
}

/** In a plugin's `config` hook: ask before using a part of a folder's file that would run or widen. */
export interface ConfigTrust extends FolderTrustView {
  /** True when this part may be used; otherwise leave it out (the user is told what was not loaded). */
  admit(item: TrustItemInput): boolean;
}

export interface ResolveTrustOptions {
  /** The project root. */
  folder: string;
  userConfigDir: string | undefined;
  /** `createHost({ trust })`: true trusts the folder for this host, false never. */
  override?: boolean;
}

/** One run's trust for one folder: answers `admit` and remembers every part it was asked about. */
export class FolderTrust implements ConfigTrust {
  readonly folder: string;
  /** The folder as the host was given it (maybe through a symlink): the parts' files are under it. */
  private readonly given: string;
  readonly trusted: boolean;
  readonly source: TrustReport["source"];
  readonly trustedFolder: string | undefined;
  private readonly known: Set<string> | undefined;
  private readonly localWrite: string | undefined;
  /** Files whose parts are admitted without their digests (see `vouchIfWritten`). */
  private readonly vouched = new Set<string>();
  private readonly seen: { item: TrustItem; digest: string | undefined; value: unknown; admitted: boolean }[] = [];

  constructor(options: ResolveTrustOptions) {
    this.folder = realFolder(options.folder);
    this.given = path.resolve(options.folder);
    const env = process.env.AGENT_TRUST;
    const forced = options.override ?? (env === "1" || env === "true" ? true : env === "0" || env === "false" ? false : undefined);
    if (forced !== undefined) {
      this.trusted = forced;
      this.source = forced ? (options.override !== undefined ? "option" : "env") : "none";
    } else {
      const record = trustRecordFor(options.userConfigDir, this.folder);
      this.trusted = !!record;
      this.source = !record ? "none" : record.path === this.folder ? "folder" : "parent";
      this.trustedFolder = record?.path;
      // Only the folder's own decision holds a fingerprint: a parent's trusts whatever lies below it.
      if (record?.path === this.folder && Array.isArray(record.items)) {
        this.known = new Set(record.items);
        this.localWrite = typeof record.localWrite === "string" ? record.localWrite : undefined;
      }
    }
    if (this.trusted && !this.trustedFolder) this.trustedFolder = this.folder;
  }

  admit = (input: TrustItemInput): boolean => {
    const item: TrustItem = { kind: String(input.kind), name: String(input.name), file: String(input.file), ...(input.detail !== undefined ? { detail: String(input.detail) } : {}) };
    // Hashed only when a fingerprint asks, or when the decision is recorded (`digests`).
    const digest = this.known && !this.vouched.has(item.file) ? itemDigest(item, input.value, this.given) : undefined;
    const admitted = this.trusted && (!this.known || this.known.has(digest!) || this.vouched.has(item.file));
    this.seen.push({ item: Object.freeze(item), digest, value: input.value, admitted });
    return admitted;
  };

  /**
   * A file agent-host itself writes for the user (`.agent/settings.local.json`): when it is exactly as
   * agent-host last wrote it, what it holds was the user's answer, admitted as the folder is; changed by
   * anything else (a `git pull` of a committed copy), its parts are checked one by one as any file's.
   */
  vouchIfWritten(file: string): void {
    if (this.localWrite && fileDigest(file) === this.localWrite) this.vouched.add(file);
  }

  /**
   * Whether a part a plugin names is one the user trusted as it is now: a file inside the folder, the
   * folder trusted, and (with a fingerprint) the part's digest in it. Asks nothing, records nothing.
   */
  covers(input: TrustItemInput): boolean {
    if (!this.trusted || typeof input?.file !== "string") return false;
    const rel = path.relative(this.given, path.resolve(this.given, input.file));
    if (!rel || rel.startsWith("..") || path.isAbsolute(rel) || !existsSync(path.resolve(this.given, input.file))) return false;
    if (!this.known) return true;
    const item: TrustItem = { kind: String(input.kind), name: String(input.name), file: String(input.file) };
    return this.known.has(itemDigest(item, input.value, this.given));
  }

  /** What the plugins are shown: the decision, no way to change it. */
  view(): ConfigTrust {
    return Object.freeze({ trusted: this.trusted, folder: this.folder, admit: this.admit });
  }

  report(): TrustReport {
    const skipped = this.seen.filter((s) => !s.admitted).map((s) => s.item);
    const state: TrustState = !this.trusted ? "untrusted" : skipped.length ? "changed" : "trusted";
    return Object.freeze({
      folder: this.folder,
      state,
      source: this.source,
      ...(this.trustedFolder ? { trustedFolder: this.trustedFolder } : {}),
      items: Object.freeze(this.seen.map((s) => s.item)),
      skipped: Object.freeze(skipped),
    });
  }

  /** Digests of every part seen, for the record written when the user trusts what was shown. */
  digests(): string[] {
    return [...new Set(this.seen.map((s) => (s.digest ??= itemDigest(s.item, s.value, this.given))))];
  }
}

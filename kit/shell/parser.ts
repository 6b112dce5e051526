/** tree-sitter's bash grammar (the wasm build VS Code ships), loaded once on first use. */
import { createRequire } from "node:module";

export interface TsNode {
  type: string;
  text: string;
  startIndex: number;
  endIndex: number;
  hasError: boolean;
  namedChildren: TsNode[];
  childCount: number;
  child(i: number): TsNode | null;
  fieldNameForChild(i: number): string | null;
  childForFieldName(name: string): TsNode | null;
  isNamed: boolean;
}
export interface TsTree {
  rootNode: TsNode;
  delete(): void;
}
export interface TsParser {
  parse(text: string): TsTree | null;
}

let parser: Promise<TsParser> | undefined;

/** The parser (~12 ms the first time): commands that never run a shell tool never pay for it. */
export function bashParser(): Promise<TsParser> {
  parser ??= (async () => {
    const require = createRequire(import.meta.url);
    // V8 optimizes the grammar's wasm on background threads, and the process cannot exit before they finish:
    // ~2 s of wall time (1.2 s of CPU) at the exit of every process that parsed a line, for parses of a few
    // hundred bytes. The baseline compiler alone parses as fast here. Set before the module is compiled.
    (require("node:v8") as typeof import("node:v8")).setFlagsFromString("--liftoff-only");
    const ts = require("@vscode/tree-sitter-wasm") as {
      Parser: { init(): Promise<void>; new (): TsParser & { setLanguage(l: unknown): void } };
      Language: { load(path: string): Promise<unknown> };
    };
    await ts.Parser.init();
    const bash = await ts.Language.load(require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm"));
    const p = new ts.Parser();
    p.setLanguage(bash);
    return p;
  })().catch((err: unknown) => {
    parser = undefined;
    throw err;
  });
  return parser;
}

/** The named children of `node` under field `field`, in order. */
export function fieldChildren(node: TsNode, field: string): TsNode[] {
  const out: TsNode[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const c = node.child(i);
    if (c?.isNamed && node.fieldNameForChild(i) === field) out.push(c);
  }
  return out;
}

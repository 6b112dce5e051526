/**
 * The length of every function in a TypeScript source, read with the compiler's own parser (a regex
 * cannot tell a function from an object literal or a string): for the architecture test's budget.
 */
import ts from "typescript";

export interface FunctionLength {
  /** 1-based line of the function's first token (its JSDoc excluded). */
  line: number;
  name: string;
  /** Lines from the first token to the last, both included. */
  lines: number;
}

/** Every function, method, accessor, constructor and arrow function in `text`, nested ones included. */
export function functionLengths(fileName: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && hasBody(node)) out.push(measure(source, node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Signatures, overloads and `declare` functions have no body and are not code to split. */
function hasBody(node: ts.SignatureDeclaration): boolean {
  return "body" in node && node.body !== undefined;
}

function measure(source: ts.SourceFile, node: ts.SignatureDeclaration): FunctionLength {
  const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
  const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
  return { line: first + 1, name: functionName(node), lines: last - first + 1 };
}

/** The declared name, else what the function is assigned to (`const f = () => …`, `{ m: function () {} }`). */
function functionName(node: ts.SignatureDeclaration): string {
  if (node.name && !ts.isComputedPropertyName(node.name)) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name)) {
    return parent.name.text;
  }
  return "(anonymous)";
}

/** A function over the budget, as `file:line name (N lines)`, or an allow-list entry that no longer fits. */
export interface BudgetReport {
  offenders: string[];
  /** Allowed functions now within the budget, or gone: their entry should go. */
  stale: string[];
}

/**
 * Every function in `files` longer than `budget` lines. `allowed` maps `file:name` to the length a known
 * offender may keep until it is split; growing past it is an offence too.
 */
export function checkFunctionBudget(files: { file: string; text: string }[], budget: number, allowed: Record<string, number> = {}): BudgetReport {
  const offenders: string[] = [];
  const seen = new Map<string, number>();
  for (const { file, text } of files) {
    for (const fn of functionLengths(file, text)) {
      const key = `${file}:${fn.name}`;
      if (key in allowed) seen.set(key, Math.max(seen.get(key) ?? 0, fn.lines));
      if (fn.lines > Math.max(budget, allowed[key] ?? 0)) offenders.push(`${file}:${fn.line} ${fn.name} (${fn.lines} lines)`);
    }
  }
  const stale = Object.keys(allowed).filter((key) => (seen.get(key) ?? 0) <= budget);
  return { offenders, stale };
}

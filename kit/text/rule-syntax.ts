/** The syntax of a permission rule (`tool` or `tool(pattern)`), checked without knowing any tool. */
/** Why a rule is malformed, or undefined. A rule that cannot mean what it says must fail loudly: a broken deny rule fails open. */
export function ruleProblem(rule: string): string | undefined {
  if (rule.trim() === "") return "an empty rule matches nothing";
  if (rule !== rule.trim()) return "remove the spaces around the rule";
  const open = rule.indexOf("(");
  const tool = open < 0 ? rule : rule.slice(0, open);
  if (!/^[a-zA-Z0-9_*?-]+$/.test(tool)) return `the tool part "${tool}" may only hold letters, digits, _, -, * and ?`;
  if (open < 0) return rule.includes(")") ? "a ) without a (" : undefined;
  if (!rule.endsWith(")")) return "the pattern must end the rule with a )";
  const pattern = rule.slice(open + 1, -1);
  if (pattern.trim() === "") return `an empty pattern: write "${tool}" alone for every use of the tool`;
  let depth = 0;
  for (const c of pattern) {
    if (c === "(") depth++;
    else if (c === ")" && --depth < 0) return "unbalanced parentheses: a ) closes nothing";
  }
  return depth === 0 ? undefined : "unbalanced parentheses: a ( is never closed";
}

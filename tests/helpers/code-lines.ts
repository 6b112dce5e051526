/**
 * Lines of code as cloc counts them: a line counts when any token other than a comment touches it, so blank
 * lines and lines of comments only do not (a doc comment is what plugin authors read, not kernel weight), and
 * a template literal spanning lines counts every line it spans. TypeScript's own scanner reads the tokens, so
 * `/*` inside a string, a template or a regular expression is not taken for a comment.
 */
import ts from "typescript";

export function codeLines(source: string): number {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, source);
  const starts = lineStarts(source);
  const lines = new Set<number>();
  const braces: number[] = []; // per open template literal, the braces opened inside its current `${`
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (isTrivia(kind)) continue;
    // A `/` after something that ends an operand divides; anywhere else it starts a regular expression.
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !endsOperand(previous)) kind = scanner.reScanSlashToken();
    if (kind === ts.SyntaxKind.TemplateHead) braces.push(0);
    else if (kind === ts.SyntaxKind.OpenBraceToken && braces.length) braces[braces.length - 1]!++;
    else if (kind === ts.SyntaxKind.CloseBraceToken && braces.length) {
      if (braces[braces.length - 1] === 0) {
        kind = scanner.reScanTemplateToken(false);
        if (kind === ts.SyntaxKind.TemplateTail) braces.pop();
      } else braces[braces.length - 1]!--;
    }
    const first = lineOf(starts, scanner.getTokenStart());
    const last = lineOf(starts, scanner.getTokenEnd() - 1);
    for (let l = first; l <= last; l++) lines.add(l);
    previous = kind;
  }
  return lines.size;
}

function endsOperand(kind: ts.SyntaxKind): boolean {
  return kind === ts.SyntaxKind.Identifier || kind === ts.SyntaxKind.NumericLiteral || kind === ts.SyntaxKind.StringLiteral
    || kind === ts.SyntaxKind.CloseParenToken || kind === ts.SyntaxKind.CloseBracketToken || kind === ts.SyntaxKind.CloseBraceToken
    || kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral || kind === ts.SyntaxKind.TemplateTail || kind === ts.SyntaxKind.RegularExpressionLiteral
    || kind === ts.SyntaxKind.ThisKeyword || kind === ts.SyntaxKind.PlusPlusToken || kind === ts.SyntaxKind.MinusMinusToken;
}

function isTrivia(kind: ts.SyntaxKind): boolean {
  return kind === ts.SyntaxKind.WhitespaceTrivia || kind === ts.SyntaxKind.NewLineTrivia || kind === ts.SyntaxKind.SingleLineCommentTrivia
    || kind === ts.SyntaxKind.MultiLineCommentTrivia || kind === ts.SyntaxKind.ShebangTrivia || kind === ts.SyntaxKind.ConflictMarkerTrivia;
}

function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === "\n") starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], pos: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= pos) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/** Whether `child` is `parent` or under it, for absolute paths: `..` and `../x` are outside; `..notes` is inside. */
import path from "node:path";

export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

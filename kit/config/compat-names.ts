/** The `compat` key's names checked against the config sources a host was given. */
import { closestNames } from "../text/suggest.js";

/** A warning per `compat.<name>` that names none of `known`: a typo (`cluade`) would otherwise pass unseen. */
export function unknownCompatNames(files: readonly { file: string; compat?: Readonly<Record<string, boolean>> }[], known: readonly string[]): string[] {
  return files.flatMap(({ file, compat }) =>
    Object.keys(compat ?? {})
      .filter((name) => !known.includes(name))
      .map((name) => {
        const near = closestNames(name, known, { max: 1 });
        return `${file}: compat.${name} names no config source of this host${near.length ? ` (did you mean compat.${near[0]}?)` : ""}; known: ${known.join(", ") || "none"}`;
      }),
  );
}

/** Built-in commands are `CliCommand`s like any plugin's; they may also use the CLI's own open options (Ctrl-C handling). */
import type { CliCommand, CliContext } from "../../core/index.js";
import type { CliOption, CliValues } from "../../core/embed.js";
import type { AppContext } from "../context.js";

export type AppCommandContext<O extends Record<string, CliOption>> = CliContext<CliValues<O>> & Pick<AppContext, "openHost" | "interrupted" | "quietTrust" | "trustFolder" | "releaseNotices">;

export function defineAppCommand<O extends Record<string, CliOption> = Record<string, never>>(
  command: Omit<CliCommand<O>, "run"> & { run?(ctx: AppCommandContext<O>): Promise<number | void> | number | void },
): CliCommand<O> {
  return command as CliCommand<O>;
}

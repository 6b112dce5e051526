/**
 * The values a user gives servers in `env` and `headers` are secrets wherever they show up later (a
 * tool's output, an error, a server's stderr or serverInfo): each is declared to the host, which
 * redacts it from the audit log, logs and CLI output (`agent config` included), as
 * `[REDACTED:mcpServers.<server>.env.<KEY>]`. Both the value as written and as expanded (`${VAR}`) are
 * declared, from every entry, also ones that fail validation (they are still shown by `agent config`).
 * For a header like `Authorization: Bearer <token>` the credential alone is declared too. Values
 * under 6 characters are not (the host ignores them: too short to tell from ordinary text). So are
 * `oauth.clientSecret` and `oauth.privateKey`.
 */
import { expandVars } from "./expand.js";

type Declare = (value: string, label: string) => void;

function declareValue(value: unknown, label: string, declare: Declare, header: boolean): void {
  if (typeof value !== "string" && typeof value !== "number") return;
  const written = String(value);
  for (const v of new Set([written, expandVars(written).value])) {
    declare(v, label);
    // `Bearer abc…`, `Basic xyz…`, `token abc…`: the credential alone may be echoed back without its scheme.
    const credential = header ? /^\s*[A-Za-z][\w-]*\s+(\S+)\s*$/.exec(v)?.[1] : undefined;
    if (credential) declare(credential, label);
  }
}

/** Declare the `env` and `headers` values of every entry of `mcpServers` as secrets. Never throws. */
export function declareServerSecrets(servers: unknown, declare: Declare): void {
  if (!servers || typeof servers !== "object" || Array.isArray(servers)) return;
  for (const [name, entry] of Object.entries(servers)) {
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) continue;
    for (const key of ["env", "headers"] as const) {
      const map = (entry as Record<string, unknown>)[key];
      if (!map || typeof map !== "object" || Array.isArray(map)) continue;
      for (const [k, v] of Object.entries(map)) {
        try {
          declareValue(v, `mcpServers.${name}.${key}.${k}`, declare, key === "headers");
        } catch {
          /* a value that cannot be read is not shown either */
        }
      }
    }
    // A pre-registered client's secret and private key (tokens are declared when they are read or saved: oauth/store.ts).
    const oauth = (entry as Record<string, unknown>).oauth as Record<string, unknown> | undefined;
    for (const k of ["clientSecret", "privateKey", "idToken"] as const) {
      if (oauth && typeof oauth === "object" && typeof oauth[k] === "string") declareValue(oauth[k], `mcpServers.${name}.oauth.${k}`, declare, false);
    }
  }
}

/**
 * The user's side of an OAuth login: a loopback listener on 127.0.0.1 that receives the
 * authorization server's redirect (`http://127.0.0.1:<port>/callback?code=…&state=…`, RFC 8252), and
 * the browser, opened on the authorization URL: `$BROWSER` when set (the first of a `:`-separated
 * list; `%s` is replaced by the URL, else the URL is appended), else the platform's opener when there
 * is a display. The URL is always printed too, for a browser on another machine.
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

export class LoopbackListener {
  private waiting: { resolve: (code: string) => void; reject: (err: Error) => void } | undefined;
  private result: { code?: string; error?: Error } | undefined;
  /** The `state` the authorization request carried; a redirect with another one is refused. */
  expectedState: string | undefined;

  private constructor(private readonly server: Server) {
    server.on("request", (req, res) => this.handle(req, res));
  }

  /** Listen on 127.0.0.1 (`port` 0: any free one). */
  static open(port = 0): Promise<LoopbackListener> {
    const server = createServer();
    return new Promise((resolve, reject) => {
      server.once("error", (err: NodeJS.ErrnoException) =>
        reject(new Error(err.code === "EADDRINUSE" ? `the OAuth callback port ${port} is in use (oauth.callbackPort)` : `cannot listen for the OAuth callback: ${err.message}`)),
      );
      server.listen(port, "127.0.0.1", () => resolve(new LoopbackListener(server)));
    });
  }

  get redirectUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  /** The `iss` of the redirect that brought the code (RFC 9207), checked by the SDK against the issuer it asked. */
  issuer: string | undefined;

  /** A new authorization request starts: a redirect that arrived for an earlier one no longer counts. */
  reset(): void {
    this.result = undefined;
    this.issuer = undefined;
  }

  /** The authorization code of the first redirect that arrives (or its error). */
  waitForCode(timeoutMs: number): Promise<string> {
    if (this.result) return this.result.code ? Promise.resolve(this.result.code) : Promise.reject(this.result.error);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      this.waiting = {
        resolve: (code) => (clearTimeout(timer), resolve(code)),
        reject: (err) => (clearTimeout(timer), reject(err)),
      };
    });
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const code = url.searchParams.get("code");
    const error = url.searchParams.get("error");
    const state = url.searchParams.get("state");
    // A redirect with another state is not our login's (a stale tab, or a page poking the port): refused, and
    // the login goes on waiting for its own.
    if (this.expectedState !== undefined && state !== this.expectedState) {
      res.writeHead(400, { "content-type": "text/html; charset=utf-8", connection: "close" });
      res.end(PAGE("Login failed", "This redirect is not for the login agent started (its state differs)."));
      return;
    }
    let outcome: { code?: string; error?: Error };
    if (code) outcome = { code };
    else outcome = { error: new Error(`the authorization server refused: ${error ?? "no code in the redirect"}${url.searchParams.get("error_description") ? ` (${url.searchParams.get("error_description")})` : ""}`) };
    res.writeHead(outcome.code ? 200 : 400, { "content-type": "text/html; charset=utf-8", connection: "close" });
    res.end(outcome.code ? PAGE("Logged in", "agent has the authorization. You can close this tab.") : PAGE("Login failed", String(outcome.error?.message).replace(/[<>&]/g, "")));
    if (this.result) return;
    this.result = outcome;
    this.issuer = url.searchParams.get("iss") ?? undefined;
    if (outcome.code) this.waiting?.resolve(outcome.code);
    else this.waiting?.reject(outcome.error!);
  }
}

/** The command that opens a URL here, or undefined (then the URL is only printed). */
export function browserCommand(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string[] | undefined {
  const first = env.BROWSER?.split(":").map((s) => s.trim()).find(Boolean);
  if (first) return first.split(/\s+/);
  if (platform === "darwin") return ["open"];
  // Not `cmd /c start`: cmd would read the URL's `&` as a command separator.
  if (platform === "win32") return ["rundll32", "url.dll,FileProtocolHandler"];
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return ["xdg-open"];
  return undefined;
}

/** Open `url` in the browser (never waits for it, never throws); false when there is none to open. */
export function openBrowser(url: string): boolean {
  const cmd = browserCommand();
  if (!cmd || !isWebUrl(url)) return false;
  const args = cmd.slice(1).map((a) => a.replace("%s", url));
  if (!cmd.some((a) => a.includes("%s"))) args.push(url);
  try {
    const child = spawn(cmd[0].replace("%s", url), args, { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** Only http(s) URLs are opened: a server's metadata or elicitation cannot make us open `file:` or another scheme. */
export function isWebUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:";
  } catch {
    return false;
  }
}

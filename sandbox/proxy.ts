/**
 * The network of a host list: an HTTP proxy in the host process that lets through only the listed
 * hosts, CONNECT for https and absolute-URI requests for plain http. It listens on a unix socket (bound
 * into a bwrap sandbox, which has no network of its own) or on 127.0.0.1 (macOS). One proxy per command,
 * so the hosts it refused are that command's.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";

export interface HostProxy {
  /** Host names refused, in order, each once. */
  readonly refused: readonly string[];
  /** The TCP port, when listening on 127.0.0.1. */
  readonly port?: number;
  close(): void;
}

/** `*.github.com` matches every subdomain of github.com (not github.com itself); other names match exactly, ignoring case. */
export function hostAllowed(host: string, patterns: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return patterns.some((p) => {
    const q = p.toLowerCase();
    return q.startsWith("*.") ? h.endsWith(q.slice(1)) && h.length > q.length - 1 : h === q;
  });
}

/** `host:port` of a CONNECT line (`[::1]:443` too). */
function splitAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(authority);
  return m ? { host: m[1] ?? m[2], port: Number(m[3]) } : undefined;
}

export function startProxy(hosts: readonly string[], listen: { path: string } | { port: 0 }): Promise<HostProxy> {
  const refused: string[] = [];
  const refuse = (host: string) => {
    if (!refused.includes(host)) refused.push(host);
  };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => forward(req, res, hosts, refuse));
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = splitAuthority(req.url ?? "");
    if (!target || !hostAllowed(target.host, hosts)) {
      refuse(target?.host ?? String(req.url));
      client.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const upstream = connect(target.port, target.host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"));
    client.on("error", () => upstream.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const ready = () => {
      const addr = server.address();
      resolve({
        refused,
        ...(addr && typeof addr === "object" ? { port: addr.port } : {}),
        close: () => {
          server.close();
          for (const s of sockets) s.destroy();
        },
      });
    };
    if ("path" in listen) server.listen(listen.path, ready);
    else server.listen(0, "127.0.0.1", ready);
  });
}

/** A plain-http request through the proxy (`GET http://host/path`): passed on when the host is listed. */
function forward(req: IncomingMessage, res: ServerResponse, hosts: readonly string[], refuse: (h: string) => void): void {
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    res.writeHead(400).end("the agent's sandbox proxy takes absolute URLs (http://host/path) and CONNECT\n");
    return;
  }
  if (url.protocol !== "http:" || !hostAllowed(url.hostname.replace(/^\[|\]$/g, ""), hosts)) {
    refuse(url.hostname);
    res.writeHead(403).end(`the agent's sandbox does not allow ${url.hostname} (config sandbox.network)\n`);
    return;
  }
  const headers = { ...req.headers };
  delete headers["proxy-connection"];
  delete headers["proxy-authorization"];
  const up = request({ host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers }, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  up.on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
  req.pipe(up);
}

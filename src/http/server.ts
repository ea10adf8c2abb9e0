import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { within } from "../clock.js";

type RouteHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
) => void | Promise<void>;

export interface HttpRoute {
  method: "GET" | "POST";
  /** `/callbacks/host/:token` style; `:name` matches one path segment. */
  path: string;
  handler: RouteHandler;
}

export interface HttpServerOptions {
  routes: HttpRoute[];
  /** Called for a handler that throws; must not log request headers or the path's secrets. */
  onError?: (error: unknown, route: HttpRoute) => void;
}

interface CompiledRoute {
  route: HttpRoute;
  regex: RegExp;
  names: string[];
}

function compile(route: HttpRoute): CompiledRoute {
  const names: string[] = [];
  const source = route.path.replace(/:([a-zA-Z_]+)/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { route, regex: new RegExp(`^${source}$`), names };
}

/** The bot's one HTTP server: every inbound route of CONTRACT.md on `PORT`. */
export function createHttpServer(options: HttpServerOptions) {
  // Compiled on first use after a change: parts of the app add their routes after the server exists.
  let compiled: CompiledRoute[] = [];
  const routes = (): CompiledRoute[] => {
    if (compiled.length !== options.routes.length) compiled = options.routes.map(compile);
    return compiled;
  };

  // The route a fixed path (one without `:name`) takes for a method, found once: webhooks come
  // thousands a second to the same few paths. Only the routes' own paths are kept, so the map
  // stays as small as the route list whatever requests come.
  let fixedFor: CompiledRoute[] | undefined;
  let fixed = new Map<string, CompiledRoute | null>();
  const fixedRoute = (method: string | undefined, path: string): CompiledRoute | null | undefined => {
    const current = routes();
    if (fixedFor !== current) {
      fixedFor = current;
      fixed = new Map();
    }
    const key = `${method} ${path}`;
    const known = fixed.get(key);
    if (known !== undefined || !current.some((c) => c.names.length === 0 && c.route.path === path))
      return known;
    const found = current.find((c) => c.route.method === method && c.regex.test(path)) ?? null;
    fixed.set(key, found?.names.length === 0 ? found : null);
    return fixed.get(key);
  };

  async function run(
    route: HttpRoute,
    req: IncomingMessage,
    res: ServerResponse,
    params: Record<string, string>,
  ) {
    try {
      await route.handler(req, res, params);
    } catch (error) {
      options.onError?.(error, route);
      if (!res.headersSent) sendText(res, 500, "internal error");
    }
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req.url);
    // A request line such as `GET http://[ HTTP/1.1` is no URL: refused, never an unhandled rejection.
    if (path === undefined) return sendText(res, 400, "bad request");
    const quick = fixedRoute(req.method, path);
    if (quick) return run(quick.route, req, res, {});
    let pathKnown = false;
    for (const { route, regex, names } of routes()) {
      const found = regex.exec(path);
      if (!found) continue;
      pathKnown = true;
      if (route.method !== req.method) continue;
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        params[name] = safeDecode(found[i + 1] ?? "");
      });
      return run(route, req, res, params);
    }
    sendText(res, pathKnown ? 405 : 404, pathKnown ? "method not allowed" : "not found");
  }

  const server: Server = createServer((req, res) => {
    void dispatch(req, res);
  });
  server.keepAliveTimeout = 65_000;
  let closing: Promise<void> | undefined;

  return {
    server,
    async listen(port: number, host = "0.0.0.0"): Promise<number> {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      return (server.address() as AddressInfo).port;
    },
    /** Stops taking new connections; requests in flight go on (`close` waits for them). */
    stopListening(): void {
      if (server.listening) server.close();
      server.closeIdleConnections();
    },
    /**
     * Stops taking connections and waits for the requests in flight, at most `timeoutMs`; then
     * cuts the connections still open. Keep-alive connections are closed as soon as they idle.
     */
    close(timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS): Promise<void> {
      closing ??= closeWithin(server, timeoutMs);
      return closing;
    },
  };
}

const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;
/** How often idle keep-alive connections are cut while closing (a client may reuse one at any time). */
const IDLE_SWEEP_MS = 50;

async function closeWithin(server: Server, timeoutMs: number): Promise<void> {
  // Also when `stopListening` ran before: the callback waits for the next "close", which fires
  // once no connection is left (at once when none is).
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  server.closeIdleConnections();
  try {
    await within(closed, timeoutMs);
  } finally {
    clearInterval(sweep);
    server.closeAllConnections();
  }
}

/** A plain path (what every sender of ours uses) is its own pathname: no URL parse per request. */
const PLAIN_PATH = /^\/[A-Za-z0-9_\-/]*$/;

function pathOf(url: string | undefined): string | undefined {
  if (url !== undefined && PLAIN_PATH.test(url) && !url.includes("//")) return url;
  try {
    return new URL(url ?? "/", "http://bot").pathname;
  } catch {
    return undefined;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function sendText(
  res: ServerResponse,
  status: number,
  body: string,
  contentType = "text/plain",
): void {
  res.writeHead(status, { "content-type": `${contentType}; charset=utf-8` });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/**
 * A body over the limit is still read to its end, up to this many bytes more, and thrown away:
 * a sender that is still writing when the answer comes sees a reset connection instead of the
 * 413 (Node resets a connection whose request stream was destroyed). Past this, the connection
 * is closed after the 413.
 */
const DRAIN_MAX_BYTES = 64 * 1_048_576;

const tooLarge = (drained: boolean) =>
  Object.assign(new Error("request body too large"), { code: "body_too_large", drained });

export const isBodyTooLarge = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === "body_too_large";

/** 413, after the body was drained; when it could not be, the connection is closed after it. */
export function sendTooLarge(res: ServerResponse, error?: unknown): void {
  if ((error as { drained?: unknown } | undefined)?.drained === false) res.setHeader("connection", "close");
  sendText(res, 413, "request body too large");
}

/**
 * Reads the raw request body up to `limitBytes` (signatures are verified over these exact bytes).
 * A larger body is drained (see DRAIN_MAX_BYTES) and rejected with code `body_too_large`.
 */
export function readRawBody(req: IncomingMessage, limitBytes = 1_048_576): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > limitBytes + DRAIN_MAX_BYTES) return Promise.reject(tooLarge(false));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (error?: Error) => {
      req.off("data", onData).off("end", onEnd).off("error", done).off("close", onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
      else if (size > limitBytes + DRAIN_MAX_BYTES) done(tooLarge(false));
    };
    const onEnd = () => done(size > limitBytes ? tooLarge(true) : undefined);
    const onClose = () => done(new Error("the request was aborted"));
    req.on("data", onData).once("end", onEnd).once("error", done).once("close", onClose);
  });
}

import type { IncomingHttpHeaders } from "node:http";
import type { SandboxBucket } from "./rate-limits.js";

export interface SandboxRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** The caller's address as the service sees it: the `X-Real-IP` header (everything here is loopback). */
  ip: string;
}

export interface SandboxReply {
  status: number;
  /** Serialised as JSON unless `raw` is given. */
  json?: unknown;
  raw?: Buffer;
  headers?: Record<string, string>;
}

type Handler = (req: SandboxRequest) => SandboxReply | Promise<SandboxReply>;

export interface Route {
  method: string;
  /** `/apiv2/screening/:id` style; `:name` matches one path segment. */
  pattern: string;
  /** Matches the client's endpoint label, e.g. `screening.create`. */
  name: string;
  /** Rate-limit buckets the service applies to this route. */
  buckets: readonly SandboxBucket[];
  /** Key the limit by `ip` (default), by API key, or one count shared by every caller (`global`). */
  limitBy?: "ip" | "key" | "global";
  /** The family's own 429 reply when the limit is hit (default `{message}` with Retry-After). */
  limitReply?: (retryAfterSeconds: number) => SandboxReply;
  handler: Handler;
}

interface Compiled {
  route: Route;
  regex: RegExp;
  names: string[];
}

export function createRouter(routes: readonly Route[]) {
  const compiled: Compiled[] = routes.map((route) => {
    const names: string[] = [];
    const source = route.pattern.replace(/:([a-zA-Z_]+)/g, (_, name: string) => {
      names.push(name);
      return "([^/]+)";
    });
    return { route, regex: new RegExp(`^${source}$`), names };
  });
  // Literal segments beat parameters (`/screening/providers` before `/screening/:id`).
  compiled.sort((a, b) => a.names.length - b.names.length);

  return {
    match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
      for (const entry of compiled) {
        if (entry.route.method !== method) continue;
        const found = entry.regex.exec(path);
        if (!found) continue;
        const params: Record<string, string> = {};
        entry.names.forEach((name, i) => {
          params[name] = decodeURIComponent(found[i + 1] ?? "");
        });
        return { route: entry.route, params };
      }
      return undefined;
    },
    /** True when some route has this path under another method (405 rather than 404). */
    knowsPath(path: string): boolean {
      return compiled.some((entry) => entry.regex.test(path));
    },
  };
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): SandboxReply => ({
  status,
  json: body,
  headers,
});

/** Parses a JSON body; `undefined` when it is missing or not JSON. */
export function readJson(req: SandboxRequest): unknown {
  if (req.rawBody.length === 0) return undefined;
  try {
    return JSON.parse(req.rawBody.toString("utf8"));
  } catch {
    return undefined;
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

import type { IncomingMessage } from "node:http";

/**
 * The MCP transport's rule against DNS rebinding (CONTRACT.md, "Agents"): a request naming an
 * `Origin` is let in only from PUBLIC_URL's origin, or, without PUBLIC_URL, from the loopback
 * names on any port (`http://localhost`, `http://127.0.0.1`, `http://[::1]`). An `Origin` of
 * `null` (a sandboxed page, a file) or one that is no URL is refused; a request without `Origin`
 * (an agent, not a browser) is judged by its token alone.
 */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function originAllowed(req: IncomingMessage, publicUrl: string | undefined): boolean {
  const given = req.headers.origin;
  if (given === undefined) return true;
  let origin: URL;
  try {
    origin = new URL(given);
  } catch {
    return false;
  }
  // `new URL("null")` throws; an origin carries no path, query or credentials.
  if (origin.pathname !== "/" || origin.search || origin.username || given.endsWith("/")) return false;
  if (publicUrl !== undefined) return origin.origin === new URL(publicUrl).origin;
  return origin.protocol === "http:" && LOOPBACK_HOSTS.has(origin.hostname);
}

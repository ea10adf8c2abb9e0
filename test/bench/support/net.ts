import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";

/** Loopback only: every server the bench starts itself listens here, every client talks to it. */
export const LOOPBACK = "127.0.0.1";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, LOOPBACK, () => {
      const port = (server.address() as AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, LOOPBACK, () => resolve());
  });
  return `http://${LOOPBACK}:${(server.address() as AddressInfo).port}`;
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** One GET /healthz; the status, or 0 when nothing answered (not listening yet). */
async function healthStatus(origin: string): Promise<number> {
  try {
    const { statusCode, body } = await request(`${origin}/healthz`, {
      headersTimeout: 1_000,
      bodyTimeout: 1_000,
      reset: true,
    });
    await body.dump();
    return statusCode;
  } catch {
    return 0;
  }
}

/** Polls /healthz every `everyMs` until 200; the elapsed ms from `since` (performance.now()), or throws. */
export async function waitHealthy(origin: string, since: number, timeoutMs: number, everyMs = 10) {
  const deadline = since + timeoutMs;
  let last = 0;
  while (performance.now() < deadline) {
    last = await healthStatus(origin);
    if (last === 200) return performance.now() - since;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${origin}/healthz did not answer 200 within ${timeoutMs} ms (last status ${last})`);
}

/**
 * Polls `POST path` (empty, unsigned) until it answers anything but 404, i.e. the route exists;
 * the elapsed ms from `since`, or undefined after `timeoutMs`.
 */
/** Time from `since` until `path` answers anything but 404, and how many 404s came first. */
export async function waitRoute(origin: string, path: string, since: number, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  let notFound = 0;
  while (performance.now() < deadline) {
    try {
      const { statusCode, body } = await request(`${origin}${path}`, {
        method: "POST",
        body: "",
        reset: true,
      });
      await body.dump();
      if (statusCode !== 404) return { ms: performance.now() - since, notFound };
      notFound += 1;
    } catch {
      // Not listening (yet): try again.
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return { ms: undefined, notFound };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

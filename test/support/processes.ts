import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Things a test starts outside its own process: free loopback ports, a private redis-server it
 * may stop and start again (Redis going down), and child processes whose exit it waits for.
 */
export const LOOPBACK = "127.0.0.1";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface PortReservation {
  port: number;
  /** Stops holding the port (once closed, it is free for the caller to listen on at once). */
  release(): Promise<void>;
}

/**
 * A free loopback port held by a listener of the test's own until `release()`: unlike a port from
 * `freePort`, nothing else (a server of a parallel test, an outgoing connection's local port) can
 * take it while the test sets up what must know the port before its server listens.
 */
export function reservePort(): Promise<PortReservation> {
  return new Promise((resolve, reject) => {
    // A connection before the release is dropped at once, as a port nobody listens on would refuse it.
    const server = createServer((socket) => socket.destroy());
    server.once("error", reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      let released: Promise<void> | undefined;
      const release = () => {
        released ??= new Promise<void>((done) => server.close(() => done()));
        return released;
      };
      resolve({ port, release });
    });
  });
}

export interface PrivateRedis {
  /** `redis://127.0.0.1:<port>`: the same after a restart. */
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: it keeps nothing). */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

/** A redis-server of the test's own on a free loopback port, without persistence. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "opsbot-test-redis-"));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", LOOPBACK, "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: "ignore" },
    );
    await waitForPing(port, Date.now() + 10_000);
  };
  const stop = async () => {
    if (child) await stopChild(child, 5_000);
    child = undefined;
  };
  await start();
  return {
    url: `redis://${LOOPBACK}:${port}`,
    port,
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPing(port: number, deadlineMs: number): Promise<void> {
  while (Date.now() < deadlineMs) {
    const pong = spawnSync("redis-cli", ["-h", LOOPBACK, "-p", String(port), "ping"], { encoding: "utf8" });
    if (pong.stdout?.trim() === "PONG") return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer PING in time`);
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves with how the child ended (at once when it already has). */
export function exited(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

/** The child's exit, or a rejection naming `what` after `timeoutMs`. */
export async function exitWithin(child: ChildProcess, timeoutMs: number, what: string): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not exit within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([exited(child), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM, then SIGKILL after `graceMs`: for cleanup, whatever state the child is in. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  try {
    await exitWithin(child, graceMs, "child");
  } catch {
    child.kill("SIGKILL");
    await exited(child);
  }
}

/** GET /healthz once: the status, or 0 when nothing answered. */
export async function healthStatus(origin: string): Promise<number> {
  try {
    const response = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(3_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** Polls /healthz until it answers `status`; fails with the last status seen. */
export async function waitForHealth(origin: string, status: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  while (Date.now() < deadline) {
    last = await healthStatus(origin);
    if (last === status) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${origin}/healthz did not answer ${status} within ${timeoutMs} ms (last: ${last})`);
}

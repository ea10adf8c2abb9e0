import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onCleanup, trackChild } from "./cleanup.js";
import { freePort, LOOPBACK, sleep } from "./net.js";

/**
 * A private redis-server on a free loopback port, as test/support/redis-global-setup.ts starts
 * one for the tests: no persistence, its own directory, stopped (and the directory removed) by
 * the bench's cleanup.
 */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` (database 0). */
  url: string;
  port: number;
  /** The URL of another database index, so a child bot with the fixed `opsbot:` prefix starts clean. */
  db(index: number): string;
}

const INSTALL_HINT =
  "redis-server is not installed. Install Debian's package (apt-get install -y redis-server), then run npm run bench again.";

export async function startRedisServer(): Promise<RedisServer> {
  if (spawnSync("redis-server", ["--version"]).error) throw new Error(INSTALL_HINT);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "opsbot-bench-redis-"));
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", LOOPBACK, "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: "ignore" },
  );
  trackChild(child);
  onCleanup("redis-server", async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(5_000)]);
    }
    rmSync(dir, { recursive: true, force: true });
  });
  await waitForPing(port, Date.now() + 10_000);
  const url = `redis://${LOOPBACK}:${port}`;
  return { url, port, db: (index) => `${url}/${index}` };
}

async function waitForPing(port: number, deadlineMs: number): Promise<void> {
  while (Date.now() < deadlineMs) {
    const pong = spawnSync("redis-cli", ["-h", LOOPBACK, "-p", String(port), "ping"], { encoding: "utf8" });
    if (pong.stdout?.trim() === "PONG") return;
    await sleep(50);
  }
  throw new Error(`redis-server on port ${port} did not answer PING in time`);
}

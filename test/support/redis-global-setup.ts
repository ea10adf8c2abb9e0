import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type {} from "vitest";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

const INSTALL_HINT =
  "redis-server is not installed. Install Debian's package (apt-get install -y redis-server) or run `npm test`, which installs it when run as root.";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPing(port: number, deadlineMs: number): Promise<void> {
  while (Date.now() < deadlineMs) {
    const pong = spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" });
    if (pong.stdout?.trim() === "PONG") return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer PING in time`);
}

let child: ChildProcess | undefined;
let dir: string | undefined;

/** Starts a private redis-server on a free loopback port for the whole test run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (spawnSync("redis-server", ["--version"]).error) throw new Error(INSTALL_HINT);
  const port = await freePort();
  dir = mkdtempSync(join(tmpdir(), "opsbot-redis-"));
  child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: "ignore" },
  );
  await waitForPing(port, Date.now() + 10_000);
  project.provide("redisUrl", `redis://127.0.0.1:${port}`);
  return async () => {
    child?.kill("SIGTERM");
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}

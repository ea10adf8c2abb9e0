import { join } from "node:path";
import { BARE_NODE_SCRIPT } from "../baselines/bare-node.js";
import { START_ARGS } from "./build.js";
import { type Child, spawnNode } from "./children.js";
import { freePort, LOOPBACK, waitHealthy } from "./net.js";
import { botEnv, type World } from "./world.js";

/**
 * The built bot in a child process (Slack + Telegram against the fakes, Redis, the service at
 * `serviceUrl`), with only the variables of CONTRACT.md in its environment (and PATH), and the
 * bare Node server of the baselines started the same way.
 */
export interface StartedChild {
  child: Child;
  origin: string;
  /** Spawn → first 200 from /healthz, ms. */
  readyMs: number;
}

const READY_TIMEOUT_MS = 20_000;

export async function startChildBot(
  world: World,
  o: {
    name: string;
    redisUrl: string;
    serviceUrl: string;
    /** `npm start` as the README says, instead of node on the built main. */
    viaNpmStart?: boolean;
    /** Added to the environment (e.g. OPS_OPERATORS). */
    env?: Record<string, string>;
  },
): Promise<StartedChild> {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...(o.viaNpmStart && process.env.HOME !== undefined && { HOME: process.env.HOME }),
    ...botEnv(world, { redisUrl: o.redisUrl, serviceUrl: o.serviceUrl, port, telegram: true }),
    ...o.env,
  };
  const child = spawnNode({
    name: o.name,
    ...(o.viaNpmStart ? { command: "npm", args: ["start", "--silent"] } : { args: START_ARGS }),
    cwd: world.repo,
    env,
    logFile: join(world.logDir, `${o.name}.log`),
  });
  return startedWhenHealthy(child, port);
}

export async function startBareNode(world: World, name: string): Promise<StartedChild> {
  const port = await freePort();
  const child = spawnNode({
    name,
    args: ["-e", BARE_NODE_SCRIPT],
    cwd: world.repo,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PORT: String(port) },
    logFile: join(world.logDir, `${name}.log`),
  });
  return startedWhenHealthy(child, port);
}

/** The child once `/healthz` answers 200 (stopped, and the error thrown, when it never does). */
export async function startedWhenHealthy(child: Child, port: number): Promise<StartedChild> {
  const origin = `http://${LOOPBACK}:${port}`;
  try {
    const readyMs = await waitHealthy(origin, child.spawnedAt, READY_TIMEOUT_MS, 5);
    return { child, origin, readyMs };
  } catch (error) {
    await child.stop(2_000);
    throw error;
  }
}

import { type ChildProcess, spawn } from "node:child_process";
import { afterEach } from "vitest";
import { exitWithin, freePort, LOOPBACK, stopChild, waitForHealth } from "./processes.js";

/**
 * The bot as a real program in a child process (`node --import tsx src/main.ts`, or `node
 * dist/src/main.js` of a build), configured only through its environment, as an orchestrator
 * runs it. Its output is collected; it is killed after the test if it is still running.
 */
export interface ChildBot {
  child: ChildProcess;
  origin: string;
  port: number;
  /** stdout and stderr so far (pino JSON lines in Slack or Telegram mode). */
  output(): string;
  /** Sends `signal` and resolves with the exit code (rejects after `timeoutMs`). */
  signal(signal: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

export interface ChildBotOptions {
  /** The program and its arguments after `node` (default: tsx on src/main.ts). */
  args?: string[];
  cwd?: string;
  env: Record<string, string>;
  /** How long the start may take until /healthz answers 200. */
  readyWithinMs?: number;
}

const running: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => stopChild(child, 3_000)));
});

export async function startChildBot(options: ChildBotOptions): Promise<ChildBot> {
  const port = await freePort();
  const child = spawn(process.execPath, options.args ?? ["--import", "tsx", "src/main.ts"], {
    cwd: options.cwd ?? process.cwd(),
    // Only what the bot needs: nothing of the test runner's environment leaks into its config.
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...options.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const origin = `http://${LOOPBACK}:${port}`;
  try {
    await waitForHealth(origin, 200, options.readyWithinMs ?? 20_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- bot output ---\n${output.slice(-4_000)}`);
  }
  return {
    child,
    origin,
    port,
    output: () => output,
    async signal(signal, timeoutMs = 15_000) {
      child.kill(signal);
      return (await exitWithin(child, timeoutMs, `the bot after ${signal}`)).code;
    },
  };
}

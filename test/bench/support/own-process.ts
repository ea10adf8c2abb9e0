import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { START_ARGS } from "./build.js";
import { spawnNode } from "./children.js";
import type { FigureResult } from "./report.js";
import type { World } from "./world.js";

/** The bot's own V8 flags (`npm start`'s: heap and young generation sizes), so memory reads as in the bot. */
const nodeFlags = START_ARGS.filter((arg) => arg.startsWith("--"));
/** Longer than any figure run this way takes; it is stopped after that. */
const OWN_PROCESS_TIMEOUT_MS = 10 * 60_000;

/**
 * Runs a figure's module in a fresh Node process of its own (the bench's node and loader flags,
 * the bot's V8 flags, `--expose-gc`), for the figures that read the process's own memory: in the bench's process they
 * would read what earlier figures left in its heap. The module gets `args` and the path of the
 * file it writes its result to (JSON: a `FigureResult`, or what the caller reads); its output
 * goes to `<logDir>/<name>.log`.
 */
export async function inOwnProcess<T = FigureResult>(
  world: World,
  name: string,
  module: URL,
  args: readonly string[],
): Promise<T> {
  const resultFile = join(world.logDir, `${name}.json`);
  const child = spawnNode({
    name,
    args: [...process.execArgv, ...nodeFlags, "--expose-gc", fileURLToPath(module), ...args, resultFile],
    cwd: world.repo,
    env: { ...process.env } as Record<string, string>,
    logFile: join(world.logDir, `${name}.log`),
  });
  const exited = new Promise<number | null>((resolve) => {
    if (child.process.exitCode !== null || child.process.signalCode !== null) resolve(child.process.exitCode);
    else child.process.once("exit", (code) => resolve(code));
  });
  const timer = setTimeout(() => void child.stop(1_000), OWN_PROCESS_TIMEOUT_MS);
  try {
    const code = await exited;
    if (code !== 0)
      throw new Error(`${name} exited with ${code ?? "a signal"}; see ${join(world.logDir, `${name}.log`)}`);
  } finally {
    clearTimeout(timer);
    await child.stop();
  }
  return JSON.parse(readFileSync(resultFile, "utf8")) as T;
}

import { STOP_BUDGET_MS, startApp } from "./app.js";
import { readConfigOrExit, secretValues } from "./config/load-config.js";
import { createLogger } from "./log.js";
import { logTarget } from "./wiring/console-log.js";
import { fallbackOnly } from "./wiring/platforms.js";

/** Past the stop budget (every step of stopping is bounded by it), something is stuck for good. */
const HARD_EXIT_MS = STOP_BUDGET_MS + 3_000;
/** A demo fed from a pipe: wait this long for pending results before exiting. */
const PIPE_DRAIN_MS = 60_000;

const config = readConfigOrExit();
const terminalMode = fallbackOnly(config);
// In console mode the terminal belongs to the conversation: logs go to a file (or stderr).
const target = logTarget(config, terminalMode);
const logger = createLogger({
  level: target.level,
  secrets: secretValues(config),
  destination: target.destination,
});
if (target.notice) process.stderr.write(`${target.notice}\n`);

// Signals are handled from the first moment: one that arrives while parts are still starting
// waits for the start to finish, then stops everything cleanly (exit 0, not killed by the signal).
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

const starting = startApp({ config, logger });
const app = await starting;
logger.info(
  { port: app.port, service: config.service.mode, store: config.redis?.kind ?? "memory" },
  "opsbot started",
);

let stopping = false;
/** Stops taking work, finishes what is in flight (bounded), closes Redis, exits 0. */
async function shutdown(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  logger.info({ reason, budgetMs: STOP_BUDGET_MS }, "stopping: finishing work in flight");
  const timer = setTimeout(() => {
    logger.error({ waitedMs: HARD_EXIT_MS }, "stopping took far longer than its budget; exiting anyway");
    process.exit(1);
  }, HARD_EXIT_MS);
  timer.unref();
  await (await starting).stop(STOP_BUDGET_MS);
  logger.info({ tookMs: Date.now() - started }, "stopped");
  process.exit(0);
}

if (app.inputFinished && !process.stdin.isTTY) {
  await app.inputFinished;
  await app.drain(PIPE_DRAIN_MS);
  await shutdown("end of input");
}

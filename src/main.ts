import { startApp } from "./app.js";
import { readConfigOrExit, secretValues } from "./config.js";
import { createLogger } from "./log.js";

const SHUTDOWN_BUDGET_MS = 10_000;
/** A demo fed from a pipe: wait this long for pending results before exiting. */
const PIPE_DRAIN_MS = 60_000;

const config = readConfigOrExit();
const consoleMode = !config.slack && !config.telegram;
// In console mode stdout belongs to the conversation: logs go to stderr.
const logger = createLogger({
  level: config.logLevel,
  secrets: secretValues(config),
  destination: consoleMode ? pinoStderr() : undefined,
});

const app = await startApp({ config, logger });
logger.info(
  { port: app.port, service: config.service.mode, store: config.redisUrl ? "redis" : "memory" },
  "opsbot started",
);

let stopping = false;
async function shutdown(signal: string, code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "stopping: finishing work in flight");
  const timer = setTimeout(() => {
    logger.error("shutdown took longer than 10 s; exiting anyway");
    process.exit(1);
  }, SHUTDOWN_BUDGET_MS);
  timer.unref();
  await app.stop();
  process.exit(code);
}

process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

if (app.consoleFinished && !process.stdin.isTTY) {
  await app.consoleFinished;
  await app.drain(PIPE_DRAIN_MS);
  await shutdown("end of input");
}

function pinoStderr() {
  return { write: (line: string) => process.stderr.write(line) };
}

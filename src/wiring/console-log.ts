import { closeSync, openSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DestinationStream, destination as fileDestination } from "pino";
import type { Config } from "../config/load-config.js";

/**
 * Where logs go in the console demo, so the conversation on the terminal stays clean: stdout is
 * the conversation; JSON log lines go to a file (named once, at start, on stderr), or, when
 * LOG_LEVEL is set, to stderr at that level. A file that cannot be opened leaves stderr at `warn`.
 * In Slack or Telegram mode the logs are the program's output (stdout) as before.
 */
const DEMO_LOG_FILE = join(tmpdir(), "opsbot.log");

export interface LogTarget {
  level: string;
  /** Unset: pino's default (stdout). */
  destination?: DestinationStream;
  /** One line for stderr at start, saying where the logs are. */
  notice?: string;
}

export function logTarget(config: Config, terminalMode: boolean, file = DEMO_LOG_FILE): LogTarget {
  if (!terminalMode) return { level: config.logLevel };
  if (config.logLevelSet) return { level: config.logLevel, destination: stderrDestination() };
  try {
    // Opened here first, so a path that cannot be written falls back at once, not at the first line.
    closeSync(openSync(file, "a"));
    return {
      level: config.logLevel,
      destination: fileDestination({ dest: file, append: true, sync: true }),
      notice: `Logs go to ${file} (set LOG_LEVEL to see them on stderr instead).`,
    };
  } catch {
    return { level: "warn", destination: stderrDestination() };
  }
}

function stderrDestination(): DestinationStream {
  return { write: (line: string) => process.stderr.write(line) };
}

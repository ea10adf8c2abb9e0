import { LogLevel, type Logger as SlackLogger } from "@slack/bolt";
import type { Logger } from "../../src/core/index.js";

/**
 * Bolt's and the WebClient's logger interface over ours, so their lines go through the same
 * pino instance (and its redaction) instead of the console. Their debug lines quote request
 * bodies; they stay at debug.
 */
export function toSlackLogger(logger: Logger): SlackLogger {
  let level = LogLevel.INFO;
  const line = (parts: unknown[]): string =>
    parts.map((p) => (typeof p === "string" ? p : p instanceof Error ? p.message : safeJson(p))).join(" ");
  const fields = { component: "slack" };
  return {
    debug: (...parts: unknown[]) => logger.debug(fields, line(parts)),
    info: (...parts: unknown[]) => logger.info(fields, line(parts)),
    warn: (...parts: unknown[]) => logger.warn(fields, line(parts)),
    error: (...parts: unknown[]) => logger.error(fields, line(parts)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

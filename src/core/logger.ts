/**
 * The logging port of the core. pino's `Logger` satisfies it, so `src/main.ts` passes its pino
 * instance; tests pass `createMemoryLogger()` and read what was logged.
 */
type LogFn = (obj: Record<string, unknown>, msg?: string) => void;

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

export interface LogRecord {
  level: keyof Logger;
  obj: Record<string, unknown>;
  msg: string | undefined;
}

/** Keeps every record in memory, so a test can assert what an operator would read. */
export function createMemoryLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const at =
    (level: keyof Logger): LogFn =>
    (obj, msg) => {
      records.push({ level, obj, msg });
    };
  return { records, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

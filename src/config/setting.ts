import { z } from "zod";

/**
 * How one environment variable is declared: the rule its text must pass (a parser from
 * `src/config/value-rules.ts` and the one line that names the rule) and, when it has one, its default.
 * The parser also converts to the unit the code reads (`minutesAsMs`, `secondsAsMs`), so a
 * default, written as an operator would write it, is converted like a given value.
 *
 * A refusal never echoes the value: half of these variables are secrets.
 */
type Parse<T> = (raw: string) => T | undefined;

function checked<T>(message: string, parse: Parse<T>) {
  return z.string().transform((raw, ctx) => {
    const value = parse(raw);
    if (value !== undefined) return value;
    ctx.issues.push({ code: "custom", message, input: "[hidden]" });
    return z.NEVER;
  });
}

/** A variable that may be unset; with `default`, that text stands in for it (and must pass the rule). */
export function setting<T>(message: string, parse: Parse<T>): z.ZodOptional<ReturnType<typeof checked<T>>>;
export function setting<T>(
  message: string,
  parse: Parse<T>,
  options: { default: string },
): z.ZodPrefault<ReturnType<typeof checked<T>>>;
export function setting<T>(message: string, parse: Parse<T>, options?: { default: string }) {
  const rule = checked(message, parse);
  return options === undefined ? rule.optional() : rule.prefault(options.default);
}

/** A comma list (the parser checks each entry): unset is the empty list. */
export const listSetting = <T>(message: string, parse: Parse<T[]>) =>
  checked(message, parse)
    .optional()
    .transform((value) => value ?? []);

/** Each declared default as it is written, by variable (the schema's own `prefault`). */
export function defaultsOf(shape: Record<string, z.ZodType>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [variable, schema] of Object.entries(shape)) {
    if (schema instanceof z.ZodPrefault) out[variable] = String(schema.def.defaultValue);
  }
  return out;
}

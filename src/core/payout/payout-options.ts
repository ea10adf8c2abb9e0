import { z } from "zod";
import { echo } from "../parse/echo.js";
import { fail, ok, type ParseResult } from "../parse/result.js";

/**
 * The orchestrator's documented per-address options, as optional words of a payout run:
 * `bandwidth on|off`, `bandwidth 400|5000`, `bandwidth 5m|1h`, `activation on|off`. They go into
 * the order's `defaults`; what is not said is left to the service's own defaults.
 */
export const payoutOptionsSchema = z.object({
  bandwidth: z.boolean().optional(),
  bandwidthAmount: z.union([z.literal(400), z.literal(5000)]).optional(),
  bandwidthPeriod: z.enum(["5m", "1h"]).optional(),
  activation: z.boolean().optional(),
});
export type PayoutOptions = z.infer<typeof payoutOptionsSchema>;

export const OPTION_WORDS = "bandwidth on|off|400|5000|5m|1h, activation on|off";
const KEYWORDS = new Set(["bandwidth", "activation"]);

export const isOptionKeyword = (word: string): boolean => KEYWORDS.has(word.toLowerCase());

function applyOption(options: PayoutOptions, keyword: string, value: string): PayoutOptions | undefined {
  const v = value.toLowerCase();
  const onOff = v === "on" ? true : v === "off" ? false : undefined;
  if (keyword === "activation") return onOff === undefined ? undefined : { ...options, activation: onOff };
  if (onOff !== undefined) return { ...options, bandwidth: onOff };
  if (v === "400" || v === "5000") return { ...options, bandwidthAmount: v === "400" ? 400 : 5000 };
  if (v === "5m" || v === "1h") return { ...options, bandwidthPeriod: v };
  return undefined;
}

/** Words `bandwidth off activation on …` → options, or the line that names the word not understood. */
export function parseOptionWords(words: readonly string[]): ParseResult<PayoutOptions> {
  let options: PayoutOptions = {};
  for (let i = 0; i < words.length; i += 2) {
    const keyword = (words[i] ?? "").toLowerCase();
    const value = words[i + 1];
    if (!KEYWORDS.has(keyword)) return fail(`${echo(words[i] ?? "")} is not an option: use ${OPTION_WORDS}`);
    const next = value === undefined ? undefined : applyOption(options, keyword, value);
    if (next === undefined) {
      return fail(`${keyword} ${echo(value ?? "")} is not understood: use ${OPTION_WORDS}`);
    }
    options = next;
  }
  return ok(options);
}

/** How the options read in the quote: "bandwidth off · activation on", or the service's defaults. */
export function describeOptions(options: PayoutOptions): string {
  const parts: string[] = [];
  if (options.bandwidth === false) parts.push("bandwidth off");
  else {
    const bandwidth = [
      options.bandwidth === true ? "on" : undefined,
      options.bandwidthAmount === undefined ? undefined : String(options.bandwidthAmount),
      options.bandwidthPeriod,
    ].filter((p): p is string => p !== undefined);
    if (bandwidth.length > 0) parts.push(`bandwidth ${bandwidth.join(" ")}`);
  }
  if (options.activation !== undefined) parts.push(`activation ${options.activation ? "on" : "off"}`);
  const said = parts.length > 0 ? `${parts.join(" · ")}; ` : "";
  return `${said}otherwise the orchestrator's defaults (bandwidth on, 400 for 1h when short; activation on)`;
}

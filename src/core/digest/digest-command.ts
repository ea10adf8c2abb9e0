import { KEEP_DAYS, utcDay } from "../activity/facts.js";
import type { CommandDefinition } from "../command.js";
import { errorReply } from "../reply.js";
import { renderDigest } from "./digest-render.js";
import { buildDigest } from "./summary.js";

const DAY_MS = 24 * 3_600_000;
const USAGE = "use digest, digest today, digest yesterday or digest YYYY-MM-DD (a UTC day of the last";

/** `digest [today|yesterday|YYYY-MM-DD]`: the day's spends by person and kind, refusals. */
function parseDigestDay(
  args: readonly string[],
  now: number,
): { ok: true; day: string } | { ok: false; line: string } {
  const usage = `${USAGE} ${KEEP_DAYS - 1} days)`;
  if (args.length > 1) return { ok: false, line: `digest takes one day: ${usage}` };
  const word = (args[0] ?? "today").toLowerCase();
  if (word === "today") return { ok: true, day: utcDay(now) };
  if (word === "yesterday") return { ok: true, day: utcDay(now - DAY_MS) };
  const at = /^\d{4}-\d\d-\d\d$/.test(word) ? Date.parse(`${word}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(at) || utcDay(at) !== word)
    return { ok: false, line: `"${args[0]}" is not a day: ${usage}` };
  const today = Date.parse(`${utcDay(now)}T00:00:00Z`);
  if (at > today) return { ok: false, line: `${word} has not happened yet: ${usage}` };
  if (at <= today - (KEEP_DAYS - 1) * DAY_MS) return { ok: false, line: `${word} is too long ago: ${usage}` };
  return { ok: true, day: word };
}

export const digestCommand: CommandDefinition = {
  verb: "digest",
  role: "viewer",
  summary: "the day's spends by person and kind, refusals",
  usage: "digest [today|yesterday]",
  example: "digest yesterday",
  async run(ctx) {
    const parsed = parseDigestDay(ctx.args, ctx.deps.now());
    if (!parsed.ok) return errorReply(parsed.line);
    return renderDigest(await buildDigest(ctx.deps, parsed.day));
  },
};

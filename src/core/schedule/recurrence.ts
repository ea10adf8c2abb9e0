import { fail, ok, type ParseResult } from "../parse/result.js";

/**
 * When a standing order runs, in UTC: every day, on some days of the week, or once (the cheapest
 * period's one-off order). Pure: the next occurrence after a moment, and how to say it.
 */
export type Repeat = { kind: "daily" } | { kind: "days"; days: number[] } | { kind: "once"; at: number };

export interface Timing {
  /** Minutes after 00:00 UTC. */
  atMin: number;
  repeat: Repeat;
}

const DAY_MS = 24 * 60 * 60_000;
/** getUTCDay order: 0 = Sunday. */
const DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
const WEEKDAYS = [1, 2, 3, 4, 5];

/** `HH:MM`, 00:00 to 23:59, as minutes after midnight. */
export function parseClock(text: string): ParseResult<number> {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!match)
    return fail(`"${text}" is not a time: write it as HH:MM in UTC, from 00:00 to 23:59, e.g. 08:30`);
  return ok(Number(match[1]) * 60 + Number(match[2]));
}

/** `daily`, `weekdays`, or a comma list of day names (`mon,wed,fri`). */
export function parseRepeat(text: string): ParseResult<Repeat> {
  const word = text.toLowerCase();
  if (word === "daily") return ok({ kind: "daily" });
  if (word === "weekdays") return ok({ kind: "days", days: WEEKDAYS });
  const names = word.split(",").filter((n) => n !== "");
  const unknown = names.filter((n) => !DAY_NAMES.some((d) => d === n));
  if (names.length === 0 || unknown.length > 0) {
    return fail(
      `unknown day name${unknown.length > 1 ? "s" : ""} "${(unknown.length > 0 ? unknown : [text]).join(",")}": write daily, weekdays, or days as ${DAY_NAMES.join(",")} (e.g. mon,wed,fri)`,
    );
  }
  const days = [...new Set(names.map((n) => DAY_NAMES.indexOf(n as (typeof DAY_NAMES)[number])))].sort();
  return ok(days.length === 7 ? { kind: "daily" } : { kind: "days", days });
}

/** The first occurrence strictly after `after` (ms), or undefined when a one-off is past. */
export function nextOccurrence(timing: Timing, after: number): number | undefined {
  const { repeat } = timing;
  if (repeat.kind === "once") return repeat.at > after ? repeat.at : undefined;
  const midnight = Math.floor(after / DAY_MS) * DAY_MS;
  for (let day = 0; day <= 7; day++) {
    const at = midnight + day * DAY_MS + timing.atMin * 60_000;
    if (at <= after) continue;
    if (repeat.kind === "days" && !repeat.days.includes(new Date(at).getUTCDay())) continue;
    return at;
  }
  return undefined;
}

export const clockText = (atMin: number): string =>
  `${String(Math.floor(atMin / 60)).padStart(2, "0")}:${String(atMin % 60).padStart(2, "0")}`;

/** "daily at 08:00 UTC", "mon,wed at 08:00 UTC", "once on 2026-11-27 at 00:01 UTC". */
export function describeTiming(timing: Timing): string {
  const at = `at ${clockText(timing.atMin)} UTC`;
  switch (timing.repeat.kind) {
    case "daily":
      return `daily ${at}`;
    case "days": {
      const { days } = timing.repeat;
      const weekdays = days.length === 5 && WEEKDAYS.every((d) => days.includes(d));
      return `${weekdays ? "weekdays" : days.map((d) => DAY_NAMES[d]).join(",")} ${at}`;
    }
    case "once":
      return `once on ${new Date(timing.repeat.at).toISOString().slice(0, 10)} ${at}`;
  }
}

/** "2026-11-27 08:00 UTC". */
export const whenText = (at: number): string =>
  `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;

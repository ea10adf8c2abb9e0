import { parsePage } from "../paging.js";
import { checkEnergyRange, parseEnergyAmount } from "../parse/amount.js";
import { fail, ok, type ParseResult } from "../parse/result.js";
import { parseTronAddress } from "../parse/tron-address.js";
import { parseClock, parseRepeat, type Repeat } from "./recurrence.js";

/**
 * `schedule energy <address> <amount> at <HH:MM> [daily|weekdays|<mon,tue,…>] [max <sun>]`,
 * `schedule list [page]`, `schedule pause|resume|remove <id>`. Bad input is one line; nothing is created.
 */
export type ScheduleArgs =
  | { kind: "energy"; address: string; amount: number; atMin: number; repeat: Repeat; maxSun?: number }
  | { kind: "list"; page: number }
  | { kind: "pause" | "resume" | "remove"; id: string };

export const SCHEDULE_USAGE =
  "schedule energy <address> <amount> at <HH:MM> [daily|weekdays|<mon,tue,…>] [max <sun>], schedule list [page], schedule pause|resume|remove <id>";
const ENERGY_USAGE =
  "use schedule energy <address> <amount> at <HH:MM> [daily|weekdays|<mon,tue,…>] [max <sun>], e.g. schedule energy TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b 65k at 08:00 weekdays max 40";
/** The ids `schedule list` shows: S and a number. */
const ID_PATTERN = /^S\d{1,9}$/i;

export function parseScheduleArgs(
  subverb: string | undefined,
  args: readonly string[],
): ParseResult<ScheduleArgs> {
  switch (subverb) {
    case "energy":
      return parseEnergy(args);
    case "list": {
      const page = parsePage(args[0], "schedule list");
      if (!page.ok || args.length > 1) return page.ok ? fail("schedule list takes one page number") : page;
      return ok({ kind: "list", page: page.value });
    }
    case "pause":
    case "resume":
    case "remove": {
      const [id, ...extra] = args;
      if (id === undefined || extra.length > 0 || !ID_PATTERN.test(id))
        return fail(`use schedule ${subverb} <id>, with the id schedule list shows (e.g. S3)`);
      return ok({ kind: subverb, id: id.toUpperCase() });
    }
    default:
      return fail(`use ${SCHEDULE_USAGE}`);
  }
}

function parseEnergy(args: readonly string[]): ParseResult<ScheduleArgs> {
  const [addressText, amountText, atWord, clock, ...rest] = args;
  if (addressText === undefined || amountText === undefined)
    return fail(`no address and amount given: ${ENERGY_USAGE}`);
  if (atWord?.toLowerCase() !== "at" || clock === undefined) return fail(`no time given: ${ENERGY_USAGE}`);
  const address = parseTronAddress(addressText);
  if (!address.ok) return address;
  const parsedAmount = parseEnergyAmount(amountText);
  if (!parsedAmount.ok) return parsedAmount;
  const amount = checkEnergyRange(parsedAmount.value);
  if (!amount.ok) return amount;
  const atMin = parseClock(clock);
  if (!atMin.ok) return atMin;
  let repeat: Repeat = { kind: "daily" };
  let maxSun: number | undefined;
  let i = 0;
  if (rest[i] !== undefined && rest[i]?.toLowerCase() !== "max") {
    const parsed = parseRepeat(rest[i] ?? "");
    if (!parsed.ok) return parsed;
    repeat = parsed.value;
    i++;
  }
  if (rest[i]?.toLowerCase() === "max") {
    const raw = rest[i + 1];
    if (raw === undefined || !/^[1-9]\d{0,8}$/.test(raw))
      return fail(
        `max must be a positive whole number of SUN per energy unit (got ${raw === undefined ? "nothing" : `"${raw}"`}), e.g. max 40`,
      );
    maxSun = Number(raw);
    i += 2;
  }
  if (i < rest.length) return fail(`unexpected "${rest.slice(i).join(" ")}": ${ENERGY_USAGE}`);
  return ok({
    kind: "energy",
    address: address.value,
    amount: amount.value,
    atMin: atMin.value,
    repeat,
    ...(maxSun !== undefined && { maxSun }),
  });
}

/**
 * The words after `chart prices` / `chart spend` / `chart balance`. Bad input is one line naming
 * what is accepted; the services offered are those of the price list that have periods.
 */
export type ChartArgs =
  | { kind: "prices"; service?: string }
  | { kind: "spend"; days: number }
  | { kind: "balance" };

const SPEND_RANGES = [7, 30] as const;

type Parsed = { ok: true; args: ChartArgs } | { ok: false; line: string };

export function parseChartArgs(subverb: string | undefined, args: readonly string[]): Parsed {
  switch (subverb) {
    case "prices":
      if (args.length > 1)
        return fail("chart prices takes one service: chart prices energy_5m or chart prices energy_1h");
      return {
        ok: true,
        args: { kind: "prices", ...(args[0] !== undefined && { service: args[0].toLowerCase() }) },
      };
    case "spend": {
      const word = args[0] ?? "7";
      const days = SPEND_RANGES.find((n) => String(n) === word);
      if (args.length > 1 || days === undefined) {
        return fail(`chart spend takes ${SPEND_RANGES.join(" or ")} (days), e.g. chart spend 30`);
      }
      return { ok: true, args: { kind: "spend", days } };
    }
    case "balance":
      if (args.length > 0) return fail("chart balance takes nothing after it");
      return { ok: true, args: { kind: "balance" } };
    default:
      return fail("use chart prices [energy_5m|energy_1h], chart spend [7|30] or chart balance");
  }
}

const fail = (line: string): Parsed => ({ ok: false, line });

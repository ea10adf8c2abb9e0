import type { Store } from "../../store/store.js";
import { formatAmount } from "../format.js";
import { sunAsTrx } from "../ledger/csv-row.js";
import type { LedgerEntry } from "../ledger/entry.js";
import { dayOf, readDay } from "../ledger/ledger.js";

/** How far back `audit` looks for the newest entries (the export reaches the rest). */
const LOOKBACK_DAYS = 92;
const DAY_MS = 86_400_000;

/**
 * The newest entries of the ledger, newest first: `skip` passed over, then `count` taken, walking
 * the days back from today (at most LOOKBACK_DAYS).
 */
export async function newestEntries(
  store: Store,
  now: number,
  skip: number,
  count: number,
): Promise<LedgerEntry[]> {
  const taken: LedgerEntry[] = [];
  let toSkip = skip;
  for (let back = 0; back < LOOKBACK_DAYS && taken.length < count; back++) {
    const day = (await readDay(store, dayOf(now - back * DAY_MS))).reverse();
    const from = Math.min(toSkip, day.length);
    toSkip -= from;
    taken.push(...day.slice(from, from + count - taken.length));
  }
  return taken;
}

/** `2026-11-29 08:01Z #12 energy slack:U1 (asked by agent:ops) T… 3.25 TRX ordered orders 7 — detail`. */
export function ledgerLine(e: LedgerEntry): string {
  const at = e.at.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, "Z");
  const parts = [at, `#${e.seq}`, e.kind, e.actor];
  if (e.requester !== e.actor) parts.push(`(asked by ${e.requester})`);
  if (e.address) parts.push(e.address);
  parts.push(formatAmount(sunAsTrx(e.amountSun)), e.result);
  if (e.orderIds.length > 0) parts.push(`orders ${e.orderIds.join(",")}`);
  if (e.detail) parts.push(`— ${e.detail}`);
  return parts.join(" ");
}

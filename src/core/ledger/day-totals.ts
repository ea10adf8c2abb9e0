import type { Store } from "../../store/store.js";
import type { LedgerEntry } from "./entry.js";
import { dayOf, readDay } from "./ledger.js";

/**
 * What one reading of a day's ledger says someone spent: every charge they made or asked for
 * (`actor` or `requester` is theirs: a person's own orders, an agent's requests they confirmed,
 * their standing orders' runs, the Host Mode cycles of an address they started), and the part of
 * it that Host Mode cycles make up. One list read, so the two figures always agree.
 */
export interface ChargedToday {
  totalSun: number;
  hostCyclesSun: number;
}

const countsToward = (e: Pick<LedgerEntry, "actor" | "requester">, who: string): boolean =>
  e.actor === who || e.requester === who;

function chargedTo(entries: readonly LedgerEntry[], who: string): ChargedToday {
  let totalSun = 0;
  let hostCyclesSun = 0;
  for (const e of entries) {
    if (e.result !== "ordered" || !countsToward(e, who)) continue;
    totalSun += e.amountSun;
    if (e.kind === "host_cycle") hostCyclesSun += e.amountSun;
  }
  return { totalSun, hostCyclesSun };
}

/** `chargedTo` over the UTC day of `now`. */
export async function chargedToday(store: Store, who: string, now: number): Promise<ChargedToday> {
  return chargedTo(await readDay(store, dayOf(now)), who);
}

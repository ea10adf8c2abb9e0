import { botSpentLast24h, rateOf, readSamples } from "../activity/rate.js";
import { keptAccount } from "../balance/account.js";
import { getBalance } from "../balance/balance-cache.js";
import { readSnapshot } from "../balance/balance-refresh.js";
import type { CoreDeps } from "../deps.js";
import { dayOf, readDay } from "../ledger/ledger.js";
import type { BalanceReading } from "./balance-chart-data.js";
import type { DayEntries } from "./spend-chart-data.js";

/**
 * Where the charts' numbers come from, read without spending a service call of their own: the
 * spend ledger's days, the runway's kept readings and spend rate, the last account reading.
 */
const DAY_MS = 24 * 3_600_000;

/** The `count` UTC days ending with `lastDay`, oldest first, each with its ledger entries. */
export async function ledgerOfDays(
  deps: Pick<CoreDeps, "store">,
  lastDay: string,
  count: number,
): Promise<DayEntries[]> {
  const end = Date.parse(`${lastDay}T00:00:00Z`);
  const days = Array.from({ length: count }, (_, i) => dayOf(end - (count - 1 - i) * DAY_MS));
  return Promise.all(days.map(async (day) => ({ day, entries: await readDay(deps.store, day) })));
}

/** The network's energy fee (SUN per unit) from the last account reading, when there is one. */
export async function energyFeeSun(deps: Pick<CoreDeps, "store">): Promise<number | undefined> {
  return (await keptAccount(deps))?.network_info.network_energy_fee;
}

/** The readings the runway kept, with the last account reading (it may be newer than them). */
export async function balanceReadings(deps: Pick<CoreDeps, "store">): Promise<BalanceReading[]> {
  const samples = await readSamples(deps.store);
  const readings = samples.flatMap((s) =>
    s.balanceTrx === undefined ? [] : [{ at: s.at, balanceTrx: s.balanceTrx }],
  );
  const snapshot = await readSnapshot(deps.store);
  if (snapshot && !readings.some((r) => r.at === snapshot.fetchedAt)) {
    readings.push({ at: snapshot.fetchedAt, balanceTrx: String(snapshot.info.stats.balance) });
  }
  return readings;
}

/** Readings for the `chart balance` command: with no reading kept yet, the balance as `balance` reads it. */
export async function balanceReadingsNow(deps: CoreDeps): Promise<BalanceReading[]> {
  const readings = await balanceReadings(deps);
  if (readings.length > 0) return readings;
  const balance = await getBalance(deps);
  return balance.known ? [{ at: balance.readAt, balanceTrx: balance.balanceTrx }] : [];
}

/** TRX per hour, as the runway computes it. */
export async function spendRatePerHour(deps: Pick<CoreDeps, "store" | "now">) {
  return rateOf(await botSpentLast24h(deps, deps.now()), await readSamples(deps.store)).trxPerHour;
}

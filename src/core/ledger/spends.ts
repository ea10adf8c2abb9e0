import Big from "big.js";
import { sunToTrx } from "../pricing/trx.js";
import type { LedgerEntry, LedgerKind } from "./entry.js";

/**
 * Money out of the account as the readers group it (`digest`, `chart spend`, the runway), read
 * from ledger entries: every charge at what the service charged — energy orders (orchestrator
 * ones at what they delivered), payout runs, Host Mode cycles, screenings and re-screens. A Host
 * Mode start costs nothing of its own (its cycles do); refusals and failures cost nothing.
 */
export type SpendKind = "energy" | "payout" | "host" | "screening";
export const SPEND_KINDS: readonly SpendKind[] = ["energy", "payout", "host", "screening"];

const KIND_OF: Record<LedgerKind, SpendKind | undefined> = {
  energy: "energy",
  schedule_run: "energy",
  payout: "payout",
  host_start: "host",
  host_cycle: "host",
  screening: "screening",
  rescreen: "screening",
  subuser_delete: undefined,
  refusal: undefined,
};

export interface Spend {
  at: string;
  /** The person it counts toward (an actor key), or a label when nobody is known. */
  who: string;
  kind: SpendKind;
  trx: Big;
  /** The standing order whose run made it; absent for a person's Confirm. */
  schedule?: string;
  /** The agent whose request a person confirmed (`agent:<name>`). */
  requester?: string;
}

/** Energy that reached addresses, and what was paid for it (the saving's base). */
export interface EnergyBought {
  at: string;
  energy: number;
  paidTrx: Big;
  /** Delivered by a payout run (one orchestrator order for many addresses). */
  run?: true;
}

/** Who a spend counts toward: the person, the starter of a Host Mode address, a standing order's creator. */
function whoOf(e: LedgerEntry): string {
  if (e.actor.startsWith("schedule:")) return e.requester;
  if (e.actor.startsWith("host:"))
    return e.requester.startsWith("host:") ? `Host Mode ${e.address}` : e.requester;
  if (e.actor.startsWith("watch:")) return e.requester;
  return e.actor;
}

export function spendsOf(entries: readonly LedgerEntry[]): Spend[] {
  return entries.flatMap((e) => {
    const kind = KIND_OF[e.kind];
    if (kind === undefined || e.result !== "ordered" || e.amountSun === 0) return [];
    const spend: Spend = { at: e.at, who: whoOf(e), kind, trx: new Big(sunToTrx(e.amountSun)) };
    if (e.actor.startsWith("schedule:")) spend.schedule = e.actor.slice("schedule:".length);
    if (e.requester.startsWith("agent:")) spend.requester = e.requester;
    return [spend];
  });
}

/** Energy bought: each ordered entry that delivered energy, at what it was charged. */
export function energyBoughtOf(entries: readonly LedgerEntry[]): EnergyBought[] {
  return entries.flatMap((e) =>
    e.result === "ordered" && (e.energy ?? 0) > 0
      ? [
          {
            at: e.at,
            energy: e.energy ?? 0,
            paidTrx: new Big(sunToTrx(e.amountSun)),
            ...(e.kind === "payout" && { run: true as const }),
          },
        ]
      : [],
  );
}

/** The day's payout runs that were charged: how many, to how many addresses, the energy delivered. */
export function payoutRunsOf(entries: readonly LedgerEntry[]) {
  const runs = entries.filter((e) => e.kind === "payout" && e.result === "ordered");
  return {
    runs: runs.length,
    addresses: runs.reduce((n, e) => n + (e.addresses ?? 0), 0),
    energy: runs.reduce((n, e) => n + (e.energy ?? 0), 0),
  };
}

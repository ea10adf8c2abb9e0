import Big from "big.js";
import type { AuditEntry } from "../audit-entry.js";
import type { Fact } from "./facts.js";

/**
 * Money out of the account, read from the day's facts: 5-minute energy orders at what they paid,
 * orchestrator orders at what their final poll says was charged (the energy delivered, at the
 * price decided at Confirm; written whichever path tracked the order, reconciled ones included),
 * Host Mode cycles at what each callback says was charged, screenings at their TRX price. Host
 * Mode starts are not counted: their first cycle arrives as a callback like every other. A payout
 * run is one spend (kind `payout`) with its addresses, at what its final poll says was charged.
 */
export type SpendKind = "energy" | "orchestrator" | "payout" | "host" | "screening";
export const SPEND_KINDS: readonly SpendKind[] = ["energy", "orchestrator", "payout", "host", "screening"];

export interface Spend {
  at: string;
  /** actorKey, or a label when nobody is known (a Host Mode address nobody here started). */
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

/** The day's payout runs: how many, to how many addresses, and the energy they delivered. */
export function payoutRunsOf(facts: readonly Fact[], bought: readonly EnergyBought[]) {
  const accepted = facts.flatMap((f) =>
    f.type === "audit" && f.entry.result === "ok" && (f.entry.message ?? "").startsWith("payout run accepted")
      ? [f.entry]
      : [],
  );
  return {
    runs: accepted.length,
    addresses: accepted.reduce((n, e) => n + (e.addresses?.length ?? 0), 0),
    energy: bought.filter((b) => b.run).reduce((n, b) => n + b.energy, 0),
  };
}

const PAID = /\bpaid ([\d.]+) TRX\b/;
const CHARGED = /\bcharged ([\d.]+) TRX\b/;
const DELEGATED = /(\d+) of \d+ energy delegated/;

function auditSpend(entry: AuditEntry): Spend | undefined {
  const base = {
    at: entry.at,
    who: entry.actor,
    ...(entry.schedule !== undefined && { schedule: entry.schedule }),
    ...(entry.requester !== undefined && { requester: entry.requester }),
  };
  const message = entry.message ?? "";
  // A partial or failed orchestrator order was charged for what it delivered.
  if (entry.verb === "energy" && message.startsWith("orchestrator final")) {
    const charged = CHARGED.exec(message)?.[1];
    return charged === undefined ? undefined : { ...base, kind: "orchestrator", trx: new Big(charged) };
  }
  // A payout run is one spend, at what it was charged, whatever the number of its addresses.
  if (entry.verb === "energy" && message.startsWith("payout run final")) {
    const charged = CHARGED.exec(message)?.[1];
    return charged === undefined ? undefined : { ...base, kind: "payout", trx: new Big(charged) };
  }
  if (entry.result !== "ok") return undefined;
  if (entry.verb === "energy") {
    if (message.startsWith("orchestrator accepted") || message.startsWith("payout run")) return undefined;
    return { ...base, kind: "energy", trx: new Big(PAID.exec(message)?.[1] ?? entry.quoteTrx ?? "0") };
  }
  if (entry.verb === "screen" && entry.quoteTrx && !/not charged/.test(entry.message ?? "")) {
    return { ...base, kind: "screening", trx: new Big(entry.quoteTrx) };
  }
  return undefined;
}

export function spendsOf(
  facts: readonly Fact[],
  starterOf: (address: string) => string | undefined,
): Spend[] {
  const spends: Spend[] = [];
  for (const fact of facts) {
    if (fact.type === "audit") {
      const spend = auditSpend(fact.entry);
      if (spend) spends.push(spend);
    } else if (fact.type === "host-cycle") {
      const who = starterOf(fact.address) ?? `Host Mode ${fact.address}`;
      spends.push({ at: fact.at, who, kind: "host", trx: new Big(fact.chargedTrx ?? "0") });
    }
  }
  return spends;
}

/** Energy bought through energy orders: 5-minute orders as ordered, orchestrator orders as delivered. */
export function energyBoughtOf(facts: readonly Fact[]): EnergyBought[] {
  const bought: EnergyBought[] = [];
  const quotes = new Map<string, Big>();
  for (const fact of facts) {
    if (fact.type !== "audit" || fact.entry.verb !== "energy") continue;
    const { entry } = fact;
    const message = entry.message ?? "";
    if (message.startsWith("payout run")) {
      const delegated = Number(DELEGATED.exec(message)?.[1] ?? "0");
      const charged = CHARGED.exec(message)?.[1];
      if (message.startsWith("payout run final") && delegated > 0 && charged !== undefined)
        bought.push({ at: entry.at, energy: delegated, paidTrx: new Big(charged), run: true });
    } else if (message.startsWith("orchestrator accepted") && entry.result === "ok") {
      quotes.set(`${entry.actor}:${entry.address}:${entry.amount}`, new Big(entry.quoteTrx ?? "0"));
    } else if (message.startsWith("orchestrator final")) {
      const delegated = Number(DELEGATED.exec(message)?.[1] ?? "0");
      const charged = CHARGED.exec(message)?.[1];
      const paid =
        charged !== undefined
          ? new Big(charged)
          : (quotes.get(`${entry.actor}:${entry.address}:${entry.amount}`) ?? new Big(entry.quoteTrx ?? "0"));
      if (delegated > 0) bought.push({ at: entry.at, energy: delegated, paidTrx: paid });
    } else if (entry.result === "ok") {
      const paid = new Big(PAID.exec(message)?.[1] ?? entry.quoteTrx ?? "0");
      bought.push({ at: entry.at, energy: Number(entry.amount ?? "0"), paidTrx: paid });
    }
  }
  return bought;
}

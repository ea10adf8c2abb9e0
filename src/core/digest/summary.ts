import Big from "big.js";
import { readFacts } from "../activity/facts.js";
import { readAccount } from "../balance/account.js";
import type { CoreDeps } from "../deps.js";
import { wasDelivered } from "../energy/index.js";
import type { LedgerEntry } from "../ledger/entry.js";
import { readDay } from "../ledger/ledger.js";
import { energyBoughtOf, payoutRunsOf, type Spend, spendsOf } from "../ledger/spends.js";
import { SUN_PER_TRX } from "../pricing/trx.js";
import { type Reconciliation, reconcileDay } from "../reconcile/index.js";

/**
 * One UTC day of activity: its money from the spend ledger (src/core/ledger/), what else happened
 * (screenings' levels, refusals, approvals, cases, agents' requests) from the day's facts.
 */
export interface Saving {
  energy: number;
  paidTrx: Big;
  /** network_energy_fee of the service (SUN per energy unit), when it could be read. */
  feeSun?: number;
  burnTrx?: Big;
  savedTrx?: Big;
}

export interface Digest {
  day: string;
  empty: boolean;
  spends: Spend[];
  hostCycles: number;
  screenings: number;
  energyDelegated: number;
  /** Payout runs accepted that day and the energy they delivered. */
  payoutRuns: { runs: number; addresses: number; energy: number };
  unconfirmed: { orderId: string; address?: string }[];
  riskLevels: Map<string, number>;
  refusals: { address: string; category: string }[];
  approvals: Map<string, number>;
  /** AML cases opened (or reopened), closed (cleared or reported) and escalated as overdue that day. */
  cases: { opened: number; closed: number; overdue: number };
  /** Agents' energy requests posted for a person that day (src/core/agents/). */
  agentRequests: number;
  saving: Saving;
  /** The ledger's total against the growth of the service's `total_trx_spent` (ledger/reconcile.ts). */
  reconciliation?: Reconciliation;
}

/** 5-minute and orchestrator energy orders of the day, by order id, to check against deliveries. */
function unconfirmedCandidates(entries: readonly LedgerEntry[]) {
  return entries.flatMap((e) => {
    if ((e.kind !== "energy" && e.kind !== "schedule_run") || e.result !== "ordered") return [];
    return e.orderIds.map((orderId) => ({ orderId, ...(e.address && { address: e.address }) }));
  });
}

function count<T>(items: readonly T[], key: (item: T) => string | undefined): Map<string, number> {
  const map = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    if (k !== undefined) map.set(k, (map.get(k) ?? 0) + 1);
  }
  return map;
}

const APPROVAL_OUTCOME = /^approval (request|approve|reject)$/;

async function savingOf(deps: CoreDeps, entries: readonly LedgerEntry[]): Promise<Saving> {
  const bought = energyBoughtOf(entries);
  const energy = bought.reduce((n, b) => n + b.energy, 0);
  const paidTrx = bought.reduce((sum, b) => sum.plus(b.paidTrx), new Big(0));
  if (energy === 0) return { energy, paidTrx };
  const feeSun = (await readAccount(deps)).info?.network_info.network_energy_fee;
  if (feeSun === undefined) return { energy, paidTrx };
  const burnTrx = new Big(feeSun).times(energy).div(SUN_PER_TRX);
  return { energy, paidTrx, feeSun, burnTrx, savedTrx: burnTrx.minus(paidTrx) };
}

export async function buildDigest(deps: CoreDeps, day: string): Promise<Digest> {
  const [facts, entries] = await Promise.all([readFacts(deps.store, day), readDay(deps.store, day)]);
  const spends = spendsOf(entries);
  const candidates = unconfirmedCandidates(entries);
  const delivered = await Promise.all(candidates.map((c) => wasDelivered(deps.store, c.orderId)));
  const screenings = facts.flatMap((f) => (f.type === "screening" ? [f] : []));
  const audits = facts.flatMap((f) => (f.type === "audit" ? [f.entry] : []));
  const saving = await savingOf(deps, entries);
  const reconciliation = await reconcileDay(deps, day);
  return {
    day,
    empty: facts.length === 0 && entries.length === 0,
    spends,
    hostCycles: entries.filter((e) => e.kind === "host_cycle").length,
    screenings: spends.filter((s) => s.kind === "screening").length,
    energyDelegated: saving.energy,
    payoutRuns: payoutRunsOf(entries),
    unconfirmed: candidates.filter((_, i) => !delivered[i]),
    riskLevels: count(screenings, (s) => s.level),
    refusals: facts.flatMap((f) =>
      f.type === "refusal" ? [{ address: f.address, category: f.category }] : [],
    ),
    approvals: count(audits, (e) =>
      APPROVAL_OUTCOME.test(e.verb) ? approvalOutcome(e.verb, e.result, e.message) : undefined,
    ),
    cases: casesOf(audits),
    agentRequests: audits.filter((e) => e.verb === "mcp request_energy" && e.result === "ok").length,
    saving,
    ...(reconciliation && { reconciliation }),
  };
}

/** From the day's audit entries of case events (src/core/cases/ writes one per event). */
function casesOf(audits: readonly { verb: string }[]): Digest["cases"] {
  const n = (...verbs: string[]) => audits.filter((e) => verbs.includes(e.verb)).length;
  return {
    opened: n("case.opened", "case.reopened"),
    closed: n("case.cleared", "case.reported"),
    overdue: n("case.escalated"),
  };
}

function approvalOutcome(verb: string, result: string, message = ""): string | undefined {
  if (verb === "approval request") return result === "ok" ? "requested" : "refused on the console";
  if (verb === "approval reject") return /withdrawn/.test(message) ? "withdrawn" : "rejected";
  if (result === "ok") return "approved";
  if (/expired/.test(message)) return "expired";
  if (/price moved/.test(message)) return "re-quoted after a price rise";
  return "refused at approval";
}

import Big from "big.js";
import { capList, formatAmount, formatDecimal, moreLine } from "../format.js";
import { SPEND_KINDS, type Spend, type SpendKind } from "../ledger/spends.js";
import { formatCount } from "../parse/echo.js";
import { reconciliationLine } from "../reconcile/index.js";
import { type Block, bold, context, fields, header, publicReply, type Reply, text } from "../reply.js";
import type { Digest, Saving } from "./summary.js";

const KIND_LABEL: Record<SpendKind, string> = {
  energy: "energy",
  payout: "payout runs",
  host: "Host Mode cycles",
  screening: "screenings",
};
const LIST_MAX = 5;

const trx = (amount: Big): string => formatAmount(amount.toFixed());

function byKind(spends: readonly Spend[]): string {
  const parts = SPEND_KINDS.flatMap((kind) => {
    const of = spends.filter((s) => s.kind === kind);
    if (of.length === 0) return [];
    const total = of.reduce((sum, s) => sum.plus(s.trx), new Big(0));
    return [`${KIND_LABEL[kind]} ${trx(total)} (${of.length})`];
  });
  return parts.join(", ");
}

function spendLines(spends: readonly Spend[]): Block[] {
  if (spends.length === 0) return [text(bold("Spends: "), "none")];
  const people = [...new Set(spends.map((s) => s.who))].sort();
  const total = spends.reduce((sum, s) => sum.plus(s.trx), new Big(0));
  return [
    text(bold("Spends: "), `${trx(total)} in all — ${byKind(spends)}`),
    ...people.map((who) => {
      const own = spends.filter((s) => s.who === who);
      const sum = own.reduce((acc, s) => acc.plus(s.trx), new Big(0));
      return text(`• ${who}: ${trx(sum)} — ${byKind(own)}`);
    }),
    ...scheduledLine(spends),
  ];
}

/** Which spends standing orders made: "of which by standing orders: 7.8 TRX (2 runs: S1, S3)". */
function scheduledLine(spends: readonly Spend[]): Block[] {
  const scheduled = spends.filter((s) => s.schedule !== undefined);
  if (scheduled.length === 0) return [];
  const sum = scheduled.reduce((acc, s) => acc.plus(s.trx), new Big(0));
  const ids = [...new Set(scheduled.map((s) => s.schedule))].join(", ");
  const runs = `${scheduled.length} run${scheduled.length === 1 ? "" : "s"}`;
  return [text(`• of which by standing orders: ${trx(sum)} (${runs}: ${ids})`)];
}

/** "3 posted; 2 ordered for 5.2 TRX": what agents asked for and what people confirmed of it. */
function agentsLine(digest: Digest): string {
  const ordered = digest.spends.filter((s) => s.requester !== undefined);
  const sum = ordered.reduce((acc, s) => acc.plus(s.trx), new Big(0));
  return `${digest.agentRequests} posted; ${ordered.length} ordered for ${trx(sum)}`;
}

function listed<T>(items: readonly T[], show: (item: T) => string): string {
  if (items.length === 0) return "none";
  const { shown, more } = capList(items, LIST_MAX);
  const tail = more > 0 ? `, ${moreLine(more)}` : "";
  return `${items.length}: ${shown.map(show).join(", ")}${tail}`;
}

const counted = (map: ReadonlyMap<string, number>): string =>
  map.size === 0 ? "none" : [...map].map(([k, n]) => `${k} ${n}`).join(" · ");

function savingBlocks(saving: Saving): Block[] {
  if (saving.energy === 0) return [fields(["Saving against burning TRX", "no energy bought"])];
  if (saving.feeSun === undefined || !saving.burnTrx || !saving.savedTrx) {
    return [fields(["Saving against burning TRX", "unknown: the network energy fee could not be read"])];
  }
  const percent = saving.burnTrx.gt(0) ? saving.savedTrx.div(saving.burnTrx).times(100).toFixed(1) : "0";
  return [
    fields(["Saving against burning TRX", `${trx(saving.savedTrx)} (${formatDecimal(percent)}%)`]),
    context(
      `How: burning TRX for ${formatCount(saving.energy)} energy costs ${formatCount(saving.energy)} × ${saving.feeSun} SUN (the service's network_energy_fee) = ${trx(saving.burnTrx)}; the bot paid ${trx(saving.paidTrx)} for it (5-minute orders at what they paid, orchestrator orders at what was charged for the energy delivered); the saving is the difference.`,
    ),
  ];
}

export function renderDigest(digest: Digest): Reply {
  const title = `Daily digest for ${digest.day} (UTC)`;
  if (digest.empty) {
    return publicReply(`${title}: no activity`, [header(title), text(`No activity on ${digest.day}.`)]);
  }
  const total = digest.spends.reduce((sum, s) => sum.plus(s.trx), new Big(0));
  return publicReply(`${title}: ${trx(total)} spent`, [
    header(title),
    ...spendLines(digest.spends),
    fields(
      ["Energy delegated", `${formatCount(digest.energyDelegated)} energy`],
      ...(digest.payoutRuns.runs > 0
        ? [
            [
              "Payout runs",
              `${digest.payoutRuns.runs} (${formatCount(digest.payoutRuns.addresses)} addresses), ${formatCount(digest.payoutRuns.energy)} energy delivered`,
            ] as [string, string],
          ]
        : []),
      ["Orders not confirmed on-chain", listed(digest.unconfirmed, (o) => o.orderId)],
      ["Screenings by risk level", counted(digest.riskLevels)],
      ["Blocked-address refusals", listed(digest.refusals, (r) => `${r.address} (${r.category})`)],
      ["Approvals", counted(digest.approvals)],
      [
        "AML cases",
        `${digest.cases.opened} opened, ${digest.cases.closed} closed, ${digest.cases.overdue} overdue`,
      ],
      ...(digest.agentRequests > 0 ? [["Agents' requests", agentsLine(digest)] as [string, string]] : []),
      ...(digest.reconciliation
        ? [["Ledger and service", reconciliationLine(digest.reconciliation)] as [string, string]]
        : []),
    ),
    ...savingBlocks(digest.saving),
  ]);
}

import { COMPLIANCE_BATCH_MAX } from "../../service/compliance.js";
import { listAlerts } from "../alerts/index.js";
import { getBalance } from "../balance/balance-cache.js";
import type { CoreDeps } from "../deps.js";
import { formatAmount } from "../format.js";
import { getPriceList } from "../pricing/price-list.js";

/**
 * The reads an agent may make, each a thin door onto what the chat commands read: the one price
 * list cache, the balance the quotes use, the deny list's batch call, the alert model. Each answer
 * is the tool's `structuredContent` and a text line for the agent's model.
 */

const PRICED = ["energy_5m", "energy_1h"] as const;

export async function agentPrices(deps: CoreDeps) {
  const list = await getPriceList(deps);
  const services = PRICED.flatMap((service) => {
    const entry = list.data.services[service];
    if (!entry) return [];
    const periods = entry.periods.map((p) => ({
      label: p.label,
      price_sun: p.price,
      current: p.is_current,
      ...(p.tiers && { tiers: p.tiers }),
    }));
    const current = periods.find((p) => p.current) ?? periods[0];
    return [
      { service, current: { label: current?.label ?? "", price_sun: current?.price_sun ?? 0 }, periods },
    ];
  });
  const text = services
    .map((s) => `${s.service}: ${s.current.price_sun} SUN per energy now (${s.current.label})`)
    .join("; ");
  return { data: { services }, text: text || "no energy prices are listed" };
}

export async function agentBalance(deps: CoreDeps) {
  const balance = await getBalance(deps);
  if (!balance.known)
    return {
      data: { balance_trx: null, reason: balance.reason },
      text: `The balance is unknown: ${balance.reason}.`,
    };
  const data = {
    balance_trx: balance.balanceTrx,
    read_at: new Date(balance.readAt).toISOString(),
    estimated: balance.estimated ?? false,
    ...(balance.spentSinceTrx !== undefined && { spent_since_trx: balance.spentSinceTrx }),
  };
  const how = data.estimated ? ` (estimated: read at ${data.read_at}, minus this bot's spends since)` : "";
  return { data, text: `Balance: ${formatAmount(balance.balanceTrx)}${how}` };
}

/** One batch call per 1000 addresses, in order. */
export async function agentCheckAddresses(deps: CoreDeps, addresses: readonly string[]) {
  const batches: string[][] = [];
  for (let i = 0; i < addresses.length; i += COMPLIANCE_BATCH_MAX) {
    batches.push(addresses.slice(i, i + COMPLIANCE_BATCH_MAX));
  }
  const answers = await Promise.all(batches.map((batch) => deps.service.compliance.batch(batch)));
  const results = answers.flatMap((answer) =>
    answer.results.map((r) => ({
      address: r.address,
      blocked: r.blocked,
      category: r.category,
      ...(r.reason_code !== undefined && { reason_code: r.reason_code }),
    })),
  );
  const blocked = results.filter((r) => r.blocked);
  const text = `${results.length} checked, ${blocked.length} blocked${blocked.length > 0 ? `: ${blocked.map((r) => `${r.address} (${r.category})`).join(", ")}` : ""}`;
  return { data: { results }, text };
}

export async function agentAlerts(deps: CoreDeps) {
  const alerts = (await listAlerts(deps, false)).map((a) => ({
    id: a.id,
    title: a.title,
    since: new Date(a.raisedAt).toISOString(),
    state: a.state,
  }));
  const text =
    alerts.length === 0 ? "No open alerts." : alerts.map((a) => `${a.id} [${a.state}] ${a.title}`).join("\n");
  return { data: { alerts }, text };
}

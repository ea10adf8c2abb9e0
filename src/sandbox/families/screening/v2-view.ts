import { AML_PROVIDERS } from "../../price-book.js";
import { isoMicros, scaleOf, scaleScore, sunToTrxDecimal, trxRateDecimal } from "./format.js";
import type { ScreeningRecord } from "./orders.js";
import { levelOf, type RiskEntity, type RiskResult } from "./scorer.js";
import { providerResult } from "./v1-view.js";

const iso = (ms: number | null): string | null => (ms === null ? null : isoMicros(ms));

function orderBlock(o: ScreeningRecord) {
  return {
    client_order_id: o.id,
    status: o.status,
    api_version: "2",
    cache_hit: o.cacheHit,
    created_at: isoMicros(o.createdAt),
    started_at: iso(o.startedAt),
    completed_at: iso(o.completedAt),
    ...(o.error === undefined ? {} : { error: o.error }),
    ...(o.reason === undefined ? {} : { reason: o.reason }),
  };
}

function billingBlock(o: ScreeningRecord) {
  return {
    charged: o.chargedSun > 0,
    price_usdt: AML_PROVIDERS[o.provider]?.price_usdt ?? "0",
    base_amount: sunToTrxDecimal(o.listSun),
    // The sandbox has no sub-user markup; the field stays so clients see the full shape.
    markup_amount: sunToTrxDecimal(0),
    charged_amount: sunToTrxDecimal(o.chargedSun),
    charged_currency: "TRX",
    exchange_rate: trxRateDecimal(),
    payment_status: o.paymentStatus,
  };
}

function checkBlock(o: ScreeningRecord) {
  const performed = o.status !== "skipped";
  const final = o.status === "completed" || o.status === "failed";
  return {
    provider: o.provider,
    provider_check_id: o.providerCheckId,
    checked_at: final ? iso(o.completedAt) : null,
    status: performed ? o.status : "not_performed",
    provider_status: !final ? null : o.status === "failed" ? "error" : "finished",
  };
}

function riskBlock(o: ScreeningRecord, r: RiskResult | null) {
  const score = scaleScore(r?.score ?? null, o.provider);
  return {
    score,
    scale: scaleOf(o.provider),
    level: levelOf(r?.score ?? null) ?? "none",
    level_source: "computed",
    provider_level: null,
    policy: "service-risk-v1",
    by_direction: {
      source: scaleScore(r?.sourceScore ?? null, o.provider),
      destination: scaleScore(r?.destinationScore ?? null, o.provider),
    },
  };
}

function sanctionsBlock(r: RiskResult) {
  const items = r.exposure.filter((e) => e.category === "sanctions");
  const share = (direction: string) =>
    items.find((e) => e.direction === direction)?.share_fraction ?? "0.000";
  return {
    self: r.selfSanctioned,
    self_entities: r.selfSanctioned ? r.entities.filter((e) => e.category === "sanctions") : [],
    exposure: { source: share("source"), destination: share("destination") },
    items: items.map((e) => ({
      category: e.category,
      share_fraction: e.share_fraction,
      direction: e.direction,
      hops: e.hops,
      entities: e.entities,
    })),
    related: [],
  };
}

function allEntities(r: RiskResult): RiskEntity[] {
  const seen = new Map<string, RiskEntity>();
  for (const e of [...r.entities, ...r.exposure.flatMap((x) => x.entities)])
    if (!seen.has(e.name)) seen.set(e.name, e);
  return [...seen.values()];
}

/** The version 2 order: every block present in every state, nulls and empty lists when there is no data. */
export function renderV2(o: ScreeningRecord) {
  const r = o.status === "completed" ? o.result : null;
  const entities = r ? allEntities(r) : [];
  return {
    schema_version: 2,
    order: orderBlock(o),
    request: { address: o.address, network: o.network, provider: o.provider },
    billing: billingBlock(o),
    precheck: {
      activity_checked: true,
      activity_status: o.active ? "active" : "inactive",
      source: "sandbox_chain_index",
    },
    check: checkBlock(o),
    risk: riskBlock(o, r),
    sanctions: r ? sanctionsBlock(r) : null,
    exposure: (r?.exposure ?? []).map(({ usd: _usd, ...item }) => item),
    rules: (r?.rules ?? []).map((rule) => ({
      ...rule,
      score: scaleScore(rule.score, o.provider),
      detected_at: iso(o.completedAt),
    })),
    entities,
    primary_entity: entities.find((e) => e.is_primary) ?? null,
    sanctioned_entities: entities.filter((e) => e.category === "sanctions"),
    wallet: { inflow_usd: r?.inflowUsd ?? null, outflow_usd: r?.outflowUsd ?? null },
    provider_data: r ? { result: providerResult(r, o.provider) } : {},
  };
}

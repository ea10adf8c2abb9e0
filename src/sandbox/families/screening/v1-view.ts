import { createHash } from "node:crypto";
import Big from "big.js";
import { SUN_PER_TRX } from "../../accounts.js";
import { AML_PROVIDERS } from "../../price-book.js";
import { num, scaleScore, v1Time } from "./format.js";
import type { ScreeningRecord } from "./orders.js";
import {
  hasSanctionsExposure,
  levelOf,
  type RiskEntity,
  type RiskExposure,
  type RiskResult,
} from "./scorer.js";

const idOf = (name: string): number => createHash("sha256").update(name).digest().readUInt32BE(0) % 1_000_000;

function entityV1(e: RiskEntity, cluster: boolean) {
  return {
    name: e.name,
    category: e.category,
    is_vasp: e.is_vasp,
    actor_id: idOf(e.name),
    entity_id: `ent_${idOf(`entity:${e.name}`)}`,
    category_id: `cat_${e.category}`,
    is_primary_entity: e.is_primary,
    ...(cluster ? { is_after_sanction_date: e.is_after_sanction_date } : {}),
  };
}

function contribution(e: RiskExposure) {
  const percent = num(new Big(e.share_fraction).times(100).toFixed(2));
  const direct = e.hops === 0;
  return {
    entities: e.entities.map((x) => entityV1(x, false)),
    contribution_value: { usd: num(e.usd) },
    contribution_percentage: percent,
    indirect_value: { usd: direct ? 0 : num(e.usd) },
    indirect_percentage: direct ? 0 : percent,
    counterparty_value: { usd: direct ? num(e.usd) : 0 },
    counterparty_percentage: direct ? percent : 0,
    min_number_of_hops: e.hops,
    is_screened_address: e.is_screened_address,
  };
}

function ruleV1(r: RiskResult, direction: "source" | "destination", provider: string) {
  return r.rules
    .filter((rule) => rule.direction === direction)
    .map((rule) => {
      const exposure = r.exposure.find((e) => e.category === rule.category);
      const percent = num(new Big(rule.share_fraction).times(100).toFixed(2));
      return {
        rule_id: `rule_${rule.category}`,
        rule_name: rule.name,
        rule_type: rule.type,
        risk_score: num(scaleScore(rule.score, provider) ?? "0"),
        matched_elements: [
          {
            category: rule.category,
            category_id: `cat_${rule.category}`,
            contributions: [],
            contribution_value: { usd: num(exposure?.usd ?? "0"), native: 0, native_major: 0 },
            contribution_percentage: percent,
          },
        ],
        matched_behaviors: [],
      };
    });
}

/** The provider's full response (v1 `result`, v2 `provider_data.result`), numbers as JSON numbers. */
export function providerResult(r: RiskResult, provider: string) {
  const scaled = (s: string | null) => (s === null ? null : num(scaleScore(s, provider) ?? "0"));
  const side = (d: "source" | "destination") => r.exposure.filter((e) => e.direction === d).map(contribution);
  return {
    risk_score: scaled(r.score),
    risk_score_detail: { source: scaled(r.sourceScore), destination: scaled(r.destinationScore) },
    contributions: { source: side("source"), destination: side("destination") },
    cluster_entities: r.entities.map((e) => entityV1(e, true)),
    evaluation_detail: {
      source: ruleV1(r, "source", provider),
      destination: ruleV1(r, "destination", provider),
    },
    detected_behaviors: [],
  };
}

const priceTrx = (o: ScreeningRecord): number => o.listSun / SUN_PER_TRX;

/** v1 creation reply while the check runs: names the status path and the price. */
export function v1PendingCreated(o: ScreeningRecord) {
  return {
    client_order_id: o.id,
    status: o.status,
    address: o.address,
    provider: o.provider,
    report_language: o.reportLanguage,
    price_usdt: num(AML_PROVIDERS[o.provider]?.price_usdt ?? "0"),
    price_trx: priceTrx(o),
    currency: "TRX",
    message: `Check started. Poll GET /apiv2/aml/${o.id} for the result.`,
    created_at: v1Time(o.createdAt),
  };
}

/** v1 read of a pending order. */
export function v1PendingRead(o: ScreeningRecord, secondsLeft: number) {
  return {
    client_order_id: o.id,
    status: o.status,
    address: o.address,
    provider: o.provider,
    report_language: o.reportLanguage,
    message: "The check is in progress.",
    estimated_time_seconds: secondsLeft,
    created_at: v1Time(o.createdAt),
  };
}

function v1Sanctions(r: RiskResult | null) {
  const items = (r?.exposure ?? []).filter((e) => e.category === "sanctions");
  return {
    self: r?.selfSanctioned ?? false,
    self_entities: r?.selfSanctioned ? r.entities.map((e) => entityV1(e, true)) : null,
    exposure: items.length === 0 ? null : { share_fraction: num(items[0]?.share_fraction ?? "0") },
    items: items.map((e) => ({ category: e.category, direction: e.direction, hops: e.hops })),
  };
}

/** v1 final shape (completed, failed or skipped); `sanctions` only on reads, as the spec lists it. */
export function v1Final(o: ScreeningRecord, onRead: boolean) {
  const r = o.status === "completed" ? o.result : null;
  const score = r ? scaleScore(r.score, o.provider) : null;
  const level = levelOf(r?.score ?? null);
  return {
    client_order_id: o.id,
    status: o.status,
    address: o.address,
    provider: o.provider,
    report_language: o.reportLanguage,
    ...(o.status === "skipped"
      ? { message: "The address has no blockchain activity; nothing was charged." }
      : {}),
    ...(o.status === "failed"
      ? { message: "The provider could not complete the check; the charge was refunded." }
      : {}),
    risk_score: score === null ? null : num(score),
    ...(level === null ? {} : { risk_level: level }),
    is_sanctioned: r ? hasSanctionsExposure(r) : false,
    created_at: v1Time(o.createdAt),
    completed_at: v1Time(o.completedAt ?? o.createdAt),
    ...(r && o.responseFormat === "full" ? { result: providerResult(r, o.provider) } : {}),
    address_users: [],
    ...(onRead ? { sanctions: v1Sanctions(r) } : {}),
  };
}

import { describe, expect, it } from "vitest";
import { billingLine, renderScreeningOrder } from "../../../src/core/screening/screening-render.js";
import { type ScreeningOrder, screeningOrderSchema } from "../../../src/service/screening.js";
import { replyText } from "../../support/core-harness.js";

const entity = (name: string, category: string, extra: Partial<Record<string, boolean>> = {}) => ({
  name,
  category,
  is_vasp: false,
  is_primary: false,
  is_after_sanction_date: false,
  ...extra,
});

/** A completed version 2 order as the spec shapes it, validated by the client's own schema. */
function order(overrides: Record<string, unknown> = {}): ScreeningOrder {
  const base = {
    schema_version: 2,
    order: {
      client_order_id: "A0123456789abcd",
      status: "completed",
      api_version: "2",
      cache_hit: false,
      created_at: "2025-03-01T12:00:00.000000Z",
      started_at: "2025-03-01T12:00:00.000000Z",
      completed_at: "2025-03-01T12:00:03.250000Z",
    },
    request: { address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", network: "trx", provider: "provider_a" },
    billing: {
      charged: true,
      price_usdt: "0.98",
      base_amount: "3.000000",
      markup_amount: "0.266667",
      charged_amount: "3.266667",
      charged_currency: "TRX",
      exchange_rate: "0.3",
      payment_status: "paid",
    },
    precheck: { activity_checked: true, activity_status: "active", source: "x" },
    check: {
      provider: "provider_a",
      provider_check_id: "chk_1",
      checked_at: "2025-03-01T12:00:03.250000Z",
      status: "completed",
      provider_status: "finished",
    },
    risk: {
      score: "7.25",
      scale: { min: 0, max: 10 },
      level: "high",
      level_source: "computed",
      provider_level: null,
      policy: "service-risk-v1",
      by_direction: { source: "7.25", destination: null },
    },
    sanctions: {
      self: false,
      self_entities: [],
      exposure: { source: "0.0625", destination: "0", note: 3 },
      items: [],
      related: [],
    },
    exposure: ["a", "b", "c", "d", "e", "f", "g"].map((c, i) => ({
      category: `cat_${c}`,
      share_fraction: `0.0${i + 1}`,
      direction: i % 2 === 0 ? "source" : "destination",
      hops: i % 3,
      is_screened_address: false,
      entities: [entity(`Entity ${c}`, `cat_${c}`)],
    })),
    rules: Array.from({ length: 6 }, (_, i) => ({
      name: `rule ${i}`,
      type: "exposure",
      level: i === 0 ? "high" : "low",
      score: "1.00",
      share_fraction: "0.1",
      category: "x",
      proximity: "direct",
      direction: "source",
      detected_at: null,
    })),
    entities: [
      entity("Primary Exchange", "exchange", { is_vasp: true, is_primary: true }),
      ...["one", "two", "three", "four", "five", "six"].map((n) => entity(`Other ${n}`, "defi")),
    ],
    primary_entity: entity("Primary Exchange", "exchange", { is_vasp: true, is_primary: true }),
    sanctioned_entities: [entity("Sanctioned SDN-1", "sanctions")],
    wallet: { inflow_usd: "10.00", outflow_usd: "5.00" },
    provider_data: {},
    ...overrides,
  };
  return screeningOrderSchema.parse(base);
}

describe("renderScreeningOrder", () => {
  it("renders a completed order with capped lists, largest exposure first", () => {
    const text = replyText(renderScreeningOrder(order()));
    expect(text).toContain("Screening: high risk");
    expect(text).toContain("Score: 7.25 / 10");
    expect(text).toContain("Sanctions: self: no; exposure: source 6.3% (Sanctioned SDN-1)");
    expect(text).toContain(
      "Top exposure\n• cat_g 7% (source, direct): Entity g\n• cat_f 6% (destination, 2 hops): Entity f\n• cat_e 5% (source, 1 hop): Entity e\n• cat_d 4% (destination, direct): Entity d\n• cat_c 3% (source, 2 hops): Entity c\n… and 2 more",
    );
    expect(text).toContain("Triggered rules\n• rule 0 — high\n• rule 1 — low");
    expect(text).toContain("• rule 4 — low\n… and 1 more");
    expect(text).toContain("Primary entity: Primary Exchange (exchange, VASP)");
    expect(text).toContain(
      "Entities: Other one (defi), Other two (defi), Other three (defi), Other four (defi), Other five (defi), … and 1 more",
    );
    expect(text).toContain(
      "Charged 3.266667 TRX (incl. markup 0.266667 TRX) · order A0123456789abcd · checked 2025-03-01 12:00:03 UTC",
    );
  });

  it("reads a null score as no triggers", () => {
    const risk = { ...order().risk, score: null, level: "none" };
    const reply = renderScreeningOrder(order({ risk, rules: [], exposure: [] }));
    expect(replyText(reply)).toContain("Score: no triggers\nLevel: no triggers");
    expect(replyText(reply)).not.toContain("Top exposure");
    expect(reply.summary).toBe("Screening of TR7NHqje…Lj6t on trx: no triggers");
  });

  it("clips names from outside so one entity cannot flood the message", () => {
    const long = entity("N".repeat(500), "exchange", { is_primary: true });
    const text = replyText(renderScreeningOrder(order({ primary_entity: long, entities: [long] })));
    expect(text).toMatch(/Primary entity: N{59}… \(exchange\)/);
    expect(text.length).toBeLessThan(3_000);
  });

  it("says what the billing block says", () => {
    const billing = order().billing;
    expect(billingLine(order({ order: { ...order().order, cache_hit: true } }))).toBe(
      "Cache hit — not charged",
    );
    expect(billingLine(order({ billing: { ...billing, charged: false, payment_status: "refunded" } }))).toBe(
      "Refunded — not charged",
    );
    expect(
      billingLine(order({ billing: { ...billing, markup_amount: "0", payment_status: "pending" } })),
    ).toBe("Charged 3.266667 TRX, payment pending");
    const skipped = order({ order: { ...order().order, status: "skipped", reason: "address_inactive" } });
    expect(billingLine(skipped)).toBe("Skipped: address has no activity — not charged");
  });

  it("renders pending and failed orders as one clear line first", () => {
    const pending = renderScreeningOrder(order({ order: { ...order().order, status: "processing" } }));
    expect(pending.summary).toBe(
      "Screening A0123456789abcd is still running; the result will be posted here.",
    );
    const failed = renderScreeningOrder(
      order({ order: { ...order().order, status: "failed", error: "timeout" } }),
    );
    expect(failed.summary).toBe("Screening A0123456789abcd of TR7NHqje…Lj6t failed (timeout).");
  });
});

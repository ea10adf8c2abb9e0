import { describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { findOrigin } from "../../../src/core/origins.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { order5mIdempotencyKey } from "../../../src/service/idempotency.js";
import {
  channel,
  operator,
  replyButtons,
  replyText,
  trackedWork,
  viewer,
} from "../../support/core-harness.js";
import { freshAddress, quote, useSpendHarness } from "../../support/spend-harness.js";

const spend = useSpendHarness();
/** 65,000 energy in the sandbox's "Day 06-18" 5-minute period (tier 61,000–199,999: 48 SUN). */
const DAY_COST_SUN = 48 * 65_000;

describe("energy: the quote", () => {
  it("quotes from the live price list and offers Confirm / Cancel without spending", async () => {
    const h = await spend.setup();
    const address = freshAddress();
    const { reply } = await quote(h, `energy ${address} 65k`);
    const body = replyText(reply);

    expect(reply.visibility).toBe("public");
    expect(body).toContain(`Address: ${address}`);
    expect(body).toContain("Energy: 65,000");
    expect(body).toContain("Rental: 5 minutes (one order)");
    expect(body).toContain("Period: Day 06-18");
    expect(body).toContain("Unit price: 48 SUN per energy");
    expect(body).toContain("Cost: 3.12 TRX (≈ $0.94)");
    expect(body).toContain("Balance: 500 TRX, covers it");
    expect(body).toContain("Deny list: clean (not on any deny list)");
    expect(replyButtons(reply).map((b) => [b.label, b.style])).toEqual([
      ["Confirm 3.12 TRX", "primary"],
      ["Cancel", undefined],
    ]);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(1);
    expect(h.sandbox.calls("pricing.get")[0]?.query).toEqual({ services: "energy_5m" });
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(h.sandbox.account.balanceSun).toBe(500 * SUN_PER_TRX);
  });

  it("shows the price of the current period: another period gives another price", async () => {
    const h = await spend.setup();
    const address = freshAddress();
    expect(replyText((await quote(h, `energy ${address} 65000`)).reply)).toContain("Cost: 3.12 TRX");
    // Within cache_ttl (60 s) the cached list is used: no second request.
    expect(replyText((await quote(h, `energy ${address} 65000`)).reply)).toContain("Cost: 3.12 TRX");
    expect(h.sandbox.calls("pricing.get")).toHaveLength(1);

    h.sandboxTime.set("2025-03-01T19:30:00.000Z");
    h.clock.advance(61_000);
    const evening = replyText((await quote(h, `energy ${address} 65000`)).reply);
    expect(evening).toContain("Period: Evening 18-24");
    expect(evening).toContain("Unit price: 42 SUN per energy");
    expect(evening).toContain("Cost: 2.73 TRX");
    expect(h.sandbox.calls("pricing.get")).toHaveLength(2);

    h.sandboxTime.set("2025-03-02T03:00:00.000Z");
    h.clock.advance(61_000);
    // Night period, bulk tier (200,000 and above): 36 SUN.
    const night = replyText((await quote(h, `energy ${address} 250k`)).reply);
    expect(night).toContain("Period: Night 00-06");
    expect(night).toContain("Unit price: 36 SUN per energy");
    expect(night).toContain("Cost: 9 TRX");
  });

  it("notes that orders of 300,000 energy and above may cost more", async () => {
    const h = await spend.setup();
    const small = replyText((await quote(h, `energy ${freshAddress()} 299999`)).reply);
    const large = replyText((await quote(h, `energy ${freshAddress()} 300k`)).reply);
    expect(small).not.toContain("may cost more");
    expect(large).toContain("Orders of 300,000 energy and above may cost more than quoted");
  });

  it("offers no button when the balance does not cover the order", async () => {
    const h = await spend.setup();
    h.sandbox.account.balanceSun = 2 * SUN_PER_TRX;
    const reply = await h.run(operator, `energy ${freshAddress()} 65k`);
    const body = replyText(reply);
    expect(reply.visibility).toBe("private");
    expect(body).toContain("Balance: 2 TRX, does NOT cover it");
    expect(body).toContain("no Confirm button is offered");
    expect(replyButtons(reply)).toEqual([]);
  });

  it("reads the balance at most once per 15 s, in the background once a reading exists", async () => {
    const h = await spend.setup();
    for (let i = 0; i < 3; i++) await quote(h, `energy ${freshAddress()} 65k`);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    h.clock.advance(16_000);
    // The quote is answered from the 16 s old reading; the refresh runs behind it.
    const { reply } = await quote(h, `energy ${freshAddress()} 65k`);
    expect(replyText(reply)).toContain("Balance: ≈ 500 TRX, read 16 s ago, covers it");
    await h.waitFor(() => h.sandbox.calls("userinfo.get")[1]?.status === 200, "the background refresh");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = replyText((await quote(h, `energy ${freshAddress()} 65k`)).reply);
    expect(after).toContain("Balance: 500 TRX, covers it");
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(2);
  });

  it("shares its balance read with the balance command, and after a spend subtracts it without reading again", async () => {
    const h = await spend.setup();
    const { confirm } = await quote(h, `energy ${freshAddress()} 65k`);
    expect(replyText(await h.run(operator, "balance"))).toContain("500");
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    await h.click(operator, confirm);
    const after = replyText((await quote(h, `energy ${freshAddress()} 65k`)).reply);
    expect(after).toMatch(/Balance: ≈ 496\.88 TRX, read (<1|\d) s ago, covers it/);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
  });

  it("quotes from the last reading when the background refresh fails, and logs the failure", async () => {
    const h = await spend.setup();
    await quote(h, `energy ${freshAddress()} 65k`);
    h.clock.advance(16_000);
    h.sandbox.inject("userinfo.get", {
      kind: "reply",
      reply: { status: 500, json: { status: "error", message: "internal error" } },
    });
    const { reply } = await quote(h, `energy ${freshAddress()} 65k`);
    expect(replyText(reply)).toContain("Balance: ≈ 500 TRX, read 16 s ago, covers it");
    expect(replyButtons(reply)).toHaveLength(2);
    await h.waitFor(
      () => h.logger.records.some((r) => String(r.msg).startsWith("balance refresh (userinfo) failed")),
      "the failed refresh to be logged",
    );
    expect(h.sandbox.calls("userinfo.get").map((c) => c.status)).toEqual([200, 500]);
  });

  it("still quotes when the balance cannot be read, and says so", async () => {
    const h = await spend.setup();
    h.sandbox.inject("userinfo.get", {
      kind: "reply",
      reply: {
        status: 429,
        json: { message: "API rate limit exceeded", request_id: "r1" },
        headers: { "retry-after": "40" },
      },
    });
    const { reply } = await quote(h, `energy ${freshAddress()} 65k`);
    expect(replyText(reply)).toContain("Balance: unknown (the account endpoint allows 6 reads a minute)");
    // Unknown is not "too low": the service still checks funds when the order is placed.
    expect(replyButtons(reply)).toHaveLength(2);
  });
});

describe("energy: bad input and roles", () => {
  it.each([
    ["energy", "no address and amount given"],
    ["energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "no amount given"],
    ["energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6x 65k", "checksum failed"],
    ["energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 60k", "below the minimum"],
    ["energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 51m", "above the maximum"],
    ["energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 65.5", "not a whole number"],
    ["energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 65k extra", "too many words"],
  ])("%s → one line, no service call at all", async (line, expected) => {
    const h = await spend.setup();
    const reply = await h.run(operator, line);
    expect(reply.visibility).toBe("private");
    expect(reply.blocks).toHaveLength(1);
    expect(replyText(reply)).toContain(expected);
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("refuses a viewer before anything is asked of the service", async () => {
    const h = await spend.setup();
    const reply = await h.run(viewer, `energy ${freshAddress()} 65k`);
    expect(replyText(reply)).toBe(
      "energy needs the operator role; you are a viewer. Ask an admin to add slack:U0VIEW to OPS_OPERATORS.",
    );
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("refuses a viewer's click on Confirm and leaves the button to an operator", async () => {
    const h = await spend.setup();
    const { confirm } = await quote(h, `energy ${freshAddress()} 65k`);
    expect(replyText(await h.click(viewer, confirm))).toContain("needs the operator role; you are a viewer");
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(replyText(await h.click(operator, confirm))).toContain("Energy delegated");
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });
});

describe("energy: deny-list preflight", () => {
  it.each([
    [
      "aml_risk",
      { severity: "BLOCK", label: "Ransomware wallet" },
      "is on the deny list (aml_risk, BLOCK: Ransomware wallet). Nothing was ordered.",
    ],
    [
      "usdt_frozen",
      undefined,
      "is frozen by the stablecoin issuer (usdt_frozen), and the service refuses resource delegation to it. Nothing was ordered.",
    ],
    [
      "smart_contract",
      undefined,
      "is a smart contract (smart_contract); energy cannot be delegated to a contract. Nothing was ordered.",
    ],
  ] as const)("refuses %s with the reason and asks nothing else", async (category, listing, expected) => {
    const h = await spend.setup();
    const address = freshAddress();
    h.sandbox.screening.addToList(category, address, listing);
    const reply = await h.run(operator, `energy ${address} 65k`);
    expect(replyText(reply)).toBe(`Refused: ${address} ${expected}`);
    expect(replyButtons(reply)).toEqual([]);
    expect(h.sandbox.calls().map((c) => c.endpoint)).toEqual(["compliance.lookup"]);
  });

  it("warns about a spam sender but allows the order", async () => {
    const h = await spend.setup();
    const address = freshAddress();
    h.sandbox.screening.addToList("spam_sender", address);
    const { reply } = await quote(h, `energy ${address} 65k`);
    const body = replyText(reply);
    expect(body).toContain("Deny list: spam_sender: allowed, see the warning");
    expect(body).toContain(`Warning: ${address} is a confirmed mass-spam sender (spam_sender)`);
    expect(replyButtons(reply)).toHaveLength(2);
  });

  it("refuses when the deny list is unavailable (5003): never spends unchecked", async () => {
    const h = await spend.setup();
    h.sandbox.screening.setComplianceUnavailable(true);
    const reply = await h.run(operator, `energy ${freshAddress()} 65k`);
    expect(replyText(reply)).toBe(
      "The deny-list check is unavailable (code 5003); try again in a moment. Nothing was ordered.",
    );
    expect(h.sandbox.calls().map((c) => c.endpoint)).toEqual(["compliance.lookup"]);
  });
});

describe("energy: spending caps", () => {
  it("refuses a quote above OPS_MAX_ORDER_TRX before any button", async () => {
    const h = await spend.setup({ settings: { maxOrderTrx: "3" } });
    const reply = await h.run(operator, `energy ${freshAddress()} 65k`);
    expect(replyText(reply)).toBe(
      "This order would cost 3.12 TRX, above the cap of 3 TRX per order (OPS_MAX_ORDER_TRX).",
    );
    expect(replyButtons(reply)).toEqual([]);
    expect(h.sandbox.calls("userinfo.get")).toEqual([]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("refuses what would pass OPS_DAILY_LIMIT_TRX, at the quote and again at Confirm", async () => {
    const h = await spend.setup({ settings: { dailyLimitTrx: "5" } });
    const first = await quote(h, `energy ${freshAddress()} 65k`);
    const second = await quote(h, `energy ${freshAddress()} 65k`);
    expect(replyText(await h.click(operator, first.confirm))).toContain("Energy delegated");

    // Quoted while the day was still empty; the limit is checked again when it is confirmed.
    const late = await h.click(operator, second.confirm);
    expect(replyText(late)).toBe(
      "Not ordered: This order would cost 3.12 TRX, but only 1.88 TRX is left today of your daily limit of 5 TRX (OPS_DAILY_LIMIT_TRX, resets at 00:00 UTC).",
    );
    const third = await h.run(operator, `energy ${freshAddress()} 65k`);
    expect(replyText(third)).toContain("only 1.88 TRX is left today");
    expect(replyButtons(third)).toEqual([]);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(500 * SUN_PER_TRX - DAY_COST_SUN);
    const audit = await readAudit(h.store, 5);
    expect(audit.map((e) => e.result)).toEqual(["failed", "ok"]);
  });
});

describe("energy: Confirm", () => {
  it("places exactly one order and records, remembers and watches it", async () => {
    const h = await spend.setup();
    const address = freshAddress();
    const { confirm } = await quote(h, `energy ${address} 65k`);
    const reply = await h.click(operator, confirm);
    const body = replyText(reply);

    const [call, ...more] = h.sandbox.calls("order5m.create");
    expect(more).toEqual([]);
    expect(call?.body).toEqual({ amount: 65_000, receiveAddress: address });
    expect(call?.headers["x-idempotency-key"]).toMatch(/^[0-9a-f]{64}$/);
    const [order] = h.sandbox.energy.orders().filter((o) => o.receiveAddress === address);
    expect(order).toBeDefined();
    const orderId = order?.orderId ?? "";

    expect(reply.replacesOriginal).toBe(true);
    expect(reply.visibility).toBe("public");
    expect(body).toContain("Energy delegated");
    expect(body).toContain(`Order: ${orderId}`);
    expect(body).toContain("Energy delegated: 65,050");
    expect(body).toContain("Paid: 3.12 TRX (quoted 3.12 TRX)");
    const links = reply.blocks.flatMap((b) => (b.type === "fields" ? b.fields.flatMap((f) => f.value) : []));
    expect(links.find((s) => s.href)?.href).toBe(`https://tronscan.org/#/transaction/${order?.hash}`);
    expect(body).not.toContain("Activation");

    expect(h.sandbox.account.balanceSun).toBe(500 * SUN_PER_TRX - DAY_COST_SUN);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(DAY_COST_SUN);
    expect(await findOrigin(h.store, "order", orderId)).toEqual(channel);
    expect(trackedWork(h)).toEqual([
      {
        job: { kind: "watch-delivery", orderId, address, conversation: channel },
        options: { delayMs: 600_000, jobId: `watch-delivery:${orderId}` },
      },
    ]);
    const [entry] = await readAudit(h.store, 5);
    expect(entry).toMatchObject({
      actor: "slack:U0OPER",
      conversation: "slack:C0OPS",
      verb: "energy",
      address,
      amount: "65000",
      quoteTrx: "3.12",
      result: "ok",
      orderIds: [orderId],
    });
  });

  it("derives the idempotency key from the confirmation, the period, the address and the amount", async () => {
    const h = await spend.setup();
    const address = freshAddress();
    const { confirm } = await quote(h, `energy ${address} 65k`);
    const record = JSON.parse((await h.store.get(`action:${confirm}`)) ?? "{}") as { confirmationId: string };
    await h.click(operator, confirm);
    const key = h.sandbox.calls("order5m.create")[0]?.headers["x-idempotency-key"];
    expect(key).toBe(
      order5mIdempotencyKey({
        confirmationId: record.confirmationId,
        period: "5m",
        receiveAddress: address,
        amount: 65_000,
      }),
    );
  });

  it("shows the activation when the order activated the address", async () => {
    const h = await spend.setup();
    const address = freshAddress();
    h.sandbox.energy.markInactive(address);
    const { confirm } = await quote(h, `energy ${address} 65k`);
    const reply = await h.click(operator, confirm);
    const [activation] = h.sandbox.energy.activations().filter((a) => a.address === address);
    expect(replyText(reply)).toMatch(/Activation: [0-9a-f]{10}…[0-9a-f]{6}/);
    expect(replyText(reply)).toContain("Paid: 4.22 TRX (quoted 3.12 TRX)");
    expect(await findOrigin(h.store, "order", activation?.hash ?? "-")).toEqual(channel);
  });

  it("double click in parallel: one order, one charge, the other click says Already handled", async () => {
    const h = await spend.setup();
    const address = freshAddress();
    const { confirm, cancel } = await quote(h, `energy ${address} 65k`);
    const replies = await Promise.all([h.click(operator, confirm), h.click(operator, confirm)]);
    replies.push(await h.click(operator, cancel));
    const texts = replies.map(replyText);
    expect(texts.filter((t) => t.includes("Energy delegated"))).toHaveLength(1);
    expect(texts.filter((t) => t === "Already handled.")).toHaveLength(2);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(h.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(500 * SUN_PER_TRX - DAY_COST_SUN);
  });

  it("an expired Confirm places no order", async () => {
    const h = await spend.setup();
    const { confirm } = await quote(h, `energy ${freshAddress()} 65k`);
    h.clock.advance(5 * 60_000 + 1);
    expect(replyText(await h.click(operator, confirm))).toBe(
      "This button has expired (buttons last 5 minutes). Run the command again.",
    );
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(h.sandbox.account.balanceSun).toBe(500 * SUN_PER_TRX);
  });

  it("Cancel places no order and kills Confirm", async () => {
    const h = await spend.setup();
    const { confirm, cancel } = await quote(h, `energy ${freshAddress()} 65k`);
    expect(replyText(await h.click(operator, cancel))).toBe("Cancelled by slack:U0OPER.");
    expect(replyText(await h.click(operator, confirm))).toBe("Already handled.");
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });
});

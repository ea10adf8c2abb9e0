import { describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { findOrigin } from "../../../src/core/origins.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { ACTIVATION_SUN } from "../../../src/sandbox/price-book.js";
import type { SandboxReply } from "../../../src/sandbox/router.js";
import { requestIdempotencyKey } from "../../../src/service/idempotency.js";
import {
  channel,
  headersTimeoutDispatcher,
  operator,
  replyText,
  trackedWork,
} from "../../support/core-harness.js";
import { freshAddress, quote, type SpendHarness, useSpendHarness } from "../../support/spend-harness.js";

const spend = useSpendHarness();
const START_SUN = 500 * SUN_PER_TRX;
/** 1-hour "Peak 08-20" price of the sandbox at noon: 65 SUN per energy. */
const CHUNK_SUN = 65 * 650_000;

async function confirmationIdOf(h: SpendHarness, token: string): Promise<string> {
  const raw = await h.store.get(`action:${token}`);
  return (JSON.parse(raw ?? "{}") as { confirmationId: string }).confirmationId;
}

async function placeLarge(h: SpendHarness, amount = "1.3m") {
  const address = freshAddress("orch");
  const q = await quote(h, `energy ${address} ${amount}`);
  const key = requestIdempotencyKey(await confirmationIdOf(h, q.confirm));
  return { address, key, ...q };
}

const summaryOf = (h: SpendHarness, key: string) =>
  h.notifications.find((n) => n.dedupKey === `orchestrator-summary:${key}`);

describe("energy above 650,000: the orchestrator", () => {
  it("quotes each chunk from the 1-hour prices and says that nothing is charged at acceptance", async () => {
    const h = await spend.setup();
    const { reply } = await placeLarge(h);
    const body = replyText(reply);
    expect(body).toContain("Energy: 1,300,000");
    expect(body).toContain("Rental: 1 hour, through the orchestrator (2 energy orders)");
    expect(body).toContain("Period: Peak 08-20");
    expect(body).toContain("Chunks: 2 × 650,000 energy at 65 SUN = 42.25 TRX each.");
    expect(body).toContain("Cost: 84.5 TRX");
    expect(body).toContain("Nothing is charged at acceptance");
    expect(body).toContain("may cost more than quoted");
    expect(h.sandbox.calls("pricing.get")[0]?.query).toEqual({ services: "energy_1h" });
  });

  it("places one order, tracks it until final, remembers every chunk and posts one summary", async () => {
    const h = await spend.setup();
    const { address, key, confirm } = await placeLarge(h);
    const reply = await h.click(operator, confirm);
    const body = replyText(reply);
    expect(body).toContain("Orchestrator order accepted");
    expect(body).toContain("Energy orders: 2");
    expect(body).toContain("Nothing is charged yet");

    const [call, ...more] = h.sandbox.calls("orchestrator.create");
    expect(more).toEqual([]);
    expect(call?.body).toEqual({ items: [{ receiveAddress: address, amount: 1_300_000 }] });
    expect(call?.headers["x-idempotency-key"]).toBe(key);
    expect(await findOrigin(h.store, "orchestrator", key)).toEqual(channel);
    expect(trackedWork(h)[0]).toEqual({
      job: { kind: "poll-orchestrator", idempotencyKey: key, conversation: channel },
      options: { delayMs: 5_000, jobId: `poll-orchestrator:${key}` },
    });
    // The quote counts against the daily limit at once; the charges follow chunk by chunk.
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(2 * CHUNK_SUN);

    await h.waitFor(() => summaryOf(h, key) !== undefined, "the orchestrator summary");
    const summary = replyText(summaryOf(h, key)?.reply ?? { blocks: [], summary: "", visibility: "public" });
    const orders = h.sandbox.energy.orders().filter((o) => o.receiveAddress === address);
    expect(orders).toHaveLength(2);
    expect(summary).toContain("Orchestrator order delivered");
    expect(summary).toContain(`${address}: completed`);
    expect(summary).toContain("Energy: 1,300,000 of 1,300,000 delegated");
    expect(summary).toContain("Energy orders: 2 of 2 done");
    expect(summary).toContain("Activation: not_needed");
    expect(summary).toContain("Bandwidth: skipped (energy_gt_600000)");
    expect(summary).toMatch(/Hashes: [0-9a-f]{10}…[0-9a-f]{6}, [0-9a-f]{10}…[0-9a-f]{6}/);
    for (const order of orders) expect(await findOrigin(h.store, "order", order.orderId)).toEqual(channel);
    expect(h.sandbox.account.balanceSun).toBe(START_SUN - 2 * CHUNK_SUN);

    await h.settle();
    expect(h.notifications.filter((n) => n.dedupKey === `orchestrator-summary:${key}`)).toHaveLength(1);
    expect(
      h.delivered.filter((d) => d.reply.summary.startsWith("Orchestrator order delivered")),
    ).toHaveLength(1);
    const audit = await readAudit(h.store, 5);
    expect(audit.map((e) => [e.result, e.verb])).toEqual([
      ["ok", "energy"],
      ["ok", "energy"],
    ]);
    expect(audit[0]?.message).toContain("1300000 of 1300000 energy delegated");
    expect(audit[0]?.orderIds).toEqual(orders.map((o) => o.orderId));
  });

  it("reports activation and a partial delivery in the summary", async () => {
    const h = await spend.setup();
    const { address, key, confirm } = await placeLarge(h, "1.3m");
    h.sandbox.energy.markInactive(address);
    h.sandbox.energy.failOrchestratorAddress(address, { energy: "partial" });
    await h.click(operator, confirm);
    await h.waitFor(() => summaryOf(h, key) !== undefined, "the orchestrator summary");
    const summary = replyText(summaryOf(h, key)?.reply ?? { blocks: [], summary: "", visibility: "public" });
    expect(summary).toContain("Orchestrator order finished");
    expect(summary).toContain(`${address}: partial`);
    expect(summary).toContain("Energy: 650,000 of 1,300,000 delegated");
    expect(summary).toContain("Energy orders: 1 of 2 done");
    expect(summary).toMatch(/Activation: done [0-9a-f]{10}…/);
    const [activation] = h.sandbox.energy.activations().filter((a) => a.address === address);
    expect(await findOrigin(h.store, "order", activation?.orderId ?? "-")).toEqual(channel);
    expect(h.sandbox.account.balanceSun).toBe(START_SUN - CHUNK_SUN - ACTIVATION_SUN);
    const [entry] = await readAudit(h.store, 1);
    expect(entry).toMatchObject({ result: "failed" });
    expect(entry?.message).toContain("orchestrator final: partial; 650000 of 1300000 energy delegated");
  });

  it("a lost answer is resent with the same key: one order, and the late first request gets 208", async () => {
    const h = await spend.setup({ client: { dispatcher: headersTimeoutDispatcher(150) } });
    const { address, key, confirm } = await placeLarge(h, "700k");
    h.sandbox.inject("orchestrator.create", { kind: "delay", ms: 400 });
    expect(replyText(await h.click(operator, confirm))).toContain("Orchestrator order accepted");
    const calls = h.sandbox.calls("orchestrator.create");
    expect(calls.map((c) => c.headers["x-idempotency-key"])).toEqual([key, key]);
    await h.waitFor(() => calls[0]?.status === 208, "the delayed first request to be answered 208");
    expect(calls[1]?.status).toBe(202);
    await h.waitFor(() => summaryOf(h, key) !== undefined, "the orchestrator summary");
    expect(h.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(START_SUN - 65 * 700_000);
  });
});

const detail = (status: number, code: number, msg: string): SandboxReply => ({
  status,
  json: { detail: { code, msg } },
  headers: status === 429 ? { "retry-after": "1" } : {},
});

describe("energy above 650,000: orchestrator refusals", () => {
  it.each([
    [
      "5011 too many in flight",
      detail(429, 5011, "Too many orders or addresses in flight"),
      "Not ordered: too many orchestrator orders or addresses are in flight (code 5011; at most 3 orders and 300 addresses). Nothing was charged. Try again when one has finished.",
    ],
    [
      "4090 idempotency conflict",
      detail(409, 4090, "IDEMPOTENCY_CONFLICT"),
      "Not ordered: this confirmation's idempotency key was already used for a different order (code 4090 IDEMPOTENCY_CONFLICT). Nothing new was charged.",
    ],
    [
      "5012 total too large",
      detail(400, 5012, "total energy above 50000000"),
      "Not ordered: the orchestrator refused the order (code 5012: total energy above 50000000). Nothing was charged.",
    ],
  ])("%s", async (_name, reply, expected) => {
    const h = await spend.setup();
    const { confirm } = await placeLarge(h);
    h.sandbox.inject("orchestrator.create", { kind: "reply", reply });
    expect(replyText(await h.click(operator, confirm))).toBe(expected);
    expect(h.sandbox.energy.orders()).toEqual([]);
    expect(trackedWork(h)).toEqual([]);
    const [entry] = await readAudit(h.store, 1);
    expect(entry).toMatchObject({ result: "failed", message: expected });
  });

  it("1004 balance below the 4 TRX minimum", async () => {
    const h = await spend.setup();
    const { confirm } = await placeLarge(h);
    h.sandbox.account.balanceSun = 3 * SUN_PER_TRX;
    expect(replyText(await h.click(operator, confirm))).toBe(
      "Not ordered: the account balance is below the service's 4 TRX minimum (code 1004). Nothing was charged. Top up, then run energy again.",
    );
    expect(h.sandbox.calls("orchestrator.create")[0]?.status).toBe(402);
    expect(h.sandbox.account.balanceSun).toBe(3 * SUN_PER_TRX);
  });

  it("5003 temporarily unavailable", async () => {
    const h = await spend.setup();
    const { confirm } = await placeLarge(h);
    h.sandbox.energy.setPoolsAtCapacity(true);
    expect(replyText(await h.click(operator, confirm))).toBe(
      "Not ordered: the orchestrator is temporarily unavailable (code 5003); nothing was stored or charged. Try again in a few seconds.",
    );
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(0);
  });

  it("an unknown outcome is looked up by its key: never accepted → says nothing was charged", async () => {
    const h = await spend.setup();
    const { key, confirm } = await placeLarge(h);
    h.sandbox.inject("orchestrator.create", { kind: "reply", reply: detail(500, 5000, "Internal error") });
    expect(replyText(await h.click(operator, confirm))).toContain("I will look it up by its key");
    await h.waitFor(() => summaryOf(h, key) !== undefined, "the lookup's notice");
    expect(summaryOf(h, key)?.reply.summary).toBe(
      `The orchestrator has no order with key ${key}: it was never accepted, so nothing was charged.`,
    );
    // Three looks (a lost create may still be on its way) before concluding.
    expect(h.sandbox.calls("orchestrator.status").map((c) => c.status)).toEqual([404, 404, 404]);
  });
});

import { describe, expect, it } from "vitest";
import { createPollOrchestratorHandler } from "../../../src/core/energy/orchestrator-tracking.js";
import { findOrigin } from "../../../src/core/origins.js";
import { channel, replyText } from "../../support/core-harness.js";
import { freshAddress, useSpendHarness } from "../../support/spend-harness.js";

const spend = useSpendHarness();
const job = (idempotencyKey: string, attempt = 0) => ({
  kind: "poll-orchestrator" as const,
  idempotencyKey,
  conversation: channel,
  attempt,
});

describe("poll-orchestrator", () => {
  it("polls again while addresses run, remembers chunk ids as they appear, then posts once", async () => {
    const h = await spend.setup({ sandbox: { energy: { orchestratorStepMs: 40 } } });
    const address = freshAddress("poll");
    const key = "poll-test-key-0001";
    await h.service.orchestrator.create({
      items: [{ receiveAddress: address, amount: 2_000_000 }],
      idempotencyKey: key,
    });
    const poll = createPollOrchestratorHandler(h.deps, { delayMs: (attempt) => (attempt < 100 ? 7 : null) });

    expect(await poll(job(key))).toEqual({ again: true, delayMs: 7 });
    let answer = await poll(job(key, 1));
    for (let attempt = 2; "again" in answer && attempt < 200; attempt++) {
      const ids = h.sandbox.energy.orders().filter((o) => o.receiveAddress === address);
      for (const order of ids.slice(0, -1))
        expect(await findOrigin(h.store, "order", order.orderId)).toEqual(channel);
      await new Promise((r) => setTimeout(r, 10));
      answer = await poll(job(key, attempt));
    }
    expect(answer).toEqual({ done: true });
    const posted = h.notifications.filter((n) => n.dedupKey === `orchestrator-summary:${key}`);
    expect(posted).toHaveLength(1);
    expect(replyText(posted[0]?.reply ?? { blocks: [], summary: "", visibility: "public" })).toContain(
      `${address}: completed`,
    );
    for (const order of h.sandbox.energy.orders()) {
      expect(await findOrigin(h.store, "order", order.orderId)).toEqual(channel);
    }
    // A repeated job (a retry after a crash) posts nothing new.
    await poll(job(key, 0));
    await h.settle();
    expect(h.delivered.filter((d) => d.reply.summary.startsWith("Orchestrator order"))).toHaveLength(1);
  });

  it("stops after its budget with one line, and leaves transient errors to the job's retries", async () => {
    const h = await spend.setup({ sandbox: { energy: { orchestratorStepMs: 5_000 } } });
    const key = "poll-test-key-0002";
    await h.service.orchestrator.create({
      items: [{ receiveAddress: freshAddress("poll"), amount: 700_000 }],
      idempotencyKey: key,
    });
    const poll = createPollOrchestratorHandler(h.deps, { delayMs: () => null });
    h.sandbox.inject("orchestrator.status", {
      kind: "reply",
      reply: { status: 503, json: { detail: { code: 5003, msg: "busy" } } },
    });
    await expect(poll(job(key))).rejects.toMatchObject({ httpStatus: 503 });
    expect(h.notifications).toEqual([]);
    expect(await poll(job(key))).toEqual({ done: true });
    expect(h.notifications.map((n) => n.reply.summary)).toEqual([
      `Orchestrator order ${key} is still not final; I stopped waiting for it. Its state stays readable on the service under this key.`,
    ]);
  });
});

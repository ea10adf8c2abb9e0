import { describe, expect, it } from "vitest";
import {
  createWatchDeliveryHandler,
  markDelivered,
  wasDelivered,
} from "../../../src/core/energy/delivery-watch.js";
import { channel, operator, replyText } from "../../support/core-harness.js";
import { freshAddress, quote, useSpendHarness } from "../../support/spend-harness.js";
import { stubDeps } from "../support.js";

const job = {
  kind: "watch-delivery" as const,
  orderId: "5M0001",
  address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  conversation: channel,
};

describe("watch-delivery", () => {
  it("markDelivered / wasDelivered", async () => {
    const deps = stubDeps();
    expect(await wasDelivered(deps.store, "5M0001")).toBe(false);
    await markDelivered(deps.store, "5M0001");
    expect(await wasDelivered(deps.store, "5M0001")).toBe(true);
    expect(await wasDelivered(deps.store, "5M0002")).toBe(false);
  });

  it("posts one notice into the conversation when no delivery was seen", async () => {
    const deps = stubDeps();
    const handler = createWatchDeliveryHandler(deps);
    expect(await handler(job)).toEqual({ done: true });
    expect(deps.posted).toHaveLength(1);
    expect(deps.posted[0]?.conversation).toEqual(channel);
    expect(replyText(deps.posted[0]?.reply ?? { blocks: [], summary: "", visibility: "public" })).toContain(
      `No on-chain delivery confirmation for energy order 5M0001 to ${job.address} after 10 minutes.`,
    );
  });

  it("stays silent once the order was delivered", async () => {
    const deps = stubDeps();
    await markDelivered(deps.store, job.orderId);
    expect(await createWatchDeliveryHandler(deps)(job)).toEqual({ done: true });
    expect(deps.posted).toEqual([]);
  });
});

const spend = useSpendHarness();

describe("watch-delivery through the job system", () => {
  it("runs ten (scaled) minutes after an order and posts when no webhook marked it", async () => {
    // 10 minutes × 0.0001 = 60 ms.
    const h = await spend.setup({ timeScale: 0.0001 });
    const delivered = await quote(h, `energy ${freshAddress("watch")} 65k`);
    const silent = await quote(h, `energy ${freshAddress("watch")} 65k`);
    await h.click(operator, delivered.confirm);
    const [first] = h.sandbox.energy.orders();
    await markDelivered(h.store, first?.orderId ?? "");
    await h.click(operator, silent.confirm);
    const [, second] = h.sandbox.energy.orders();
    await h.settle();
    const notices = h.notifications.filter((n) => n.dedupKey?.startsWith("watch-delivery:"));
    expect(notices.map((n) => n.dedupKey)).toEqual([`watch-delivery:${second?.orderId}`]);
    expect(h.delivered.map((d) => d.reply.summary)).toEqual([
      `No on-chain delivery confirmation for energy order ${second?.orderId} to ${second?.receiveAddress} after 10 minutes.`,
    ]);
  });
});

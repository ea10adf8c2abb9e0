import { afterEach, describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels } from "../adapters/slack/harness.js";
import { ADMIN, createWorld, eventually, HOST_CALLBACK_TOKEN } from "../support/app-world.js";
import { sampleValue, scrape, series } from "../support/prometheus.js";
import { testRedis } from "../support/redis.js";
import { delegationEvent } from "../webhooks/signed.js";

/**
 * `GET /metrics` of the whole bot (startApp on Redis, Slack on, the service on its own port):
 * real commands, a button, webhooks and a callback, then the scrape must show each of them with
 * the right labels and values, and nothing that did not happen.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const VIEWER = { id: "U0VIEWER", name: "vic" };
const CHANNEL = "C0OPS";

describe("GET /metrics", () => {
  it("is Prometheus text from the app's registry, with Node's process metrics", async () => {
    const world = await createWorld({ redis: { url: redis.url, prefix: redis.prefix } });
    const bot = await world.start();
    const { contentType, text } = await scrape(bot.origin);
    expect(contentType).toBe(bot.app.metrics.registry.contentType);
    expect(contentType).toContain("text/plain");
    expect(text).toContain("# TYPE opsbot_commands_total counter");
    expect(text).toContain("# TYPE opsbot_service_call_seconds histogram");
    expect(series(text, "opsbot_process_resident_memory_bytes")).toHaveLength(1);
    // Nothing happened yet: no command was counted, no TRX was spent.
    expect(series(text, "opsbot_commands_total")).toEqual([]);
    expect(series(text, "opsbot_spend_trx_total")).toEqual([]);
    for (const queue of ["notify", "tracked", "webhooks"]) {
      expect(sampleValue(text, "opsbot_queue_jobs", { queue, state: "waiting" })).toBe(0);
    }
  });

  it("counts commands by verb and outcome, service calls, spend, webhooks, queue depth and send failures", async () => {
    const world = await createWorld({
      redis: { url: redis.url, prefix: redis.prefix },
      sandbox: { energy: { order5mLatencyMs: 5 } },
    });
    const bot = await world.start();
    const { slack, sandbox } = world;

    // A command that runs, one that does not parse, one the role forbids.
    await bot.command("/prices");
    await bot.command("/ops frobnicate");
    await bot.command(`/energy ${tronAddress("metrics-viewer")} 65k`, { user: VIEWER });
    // A command whose service call fails (HTTP 500 from userinfo).
    sandbox.inject("userinfo.get", { kind: "reply", reply: { status: 500, json: { error: "boom" } } }, 1);
    await bot.command("/balance", { user: ADMIN });

    // energy → quote → Confirm: one order, its TRX recorded.
    const address = tronAddress("metrics-energy");
    await bot.command(`/energy ${address} 65k`);
    const quote = structuredClone(
      await eventually(
        () => slack.channelMessages(CHANNEL).find((m) => buttonLabels(m).some((l) => /Confirm/.test(l))),
        "the energy quote",
      ),
    );
    expect((await bot.click(quote, /^Confirm/)).status).toBe(200);
    await eventually(
      () => slack.channelMessages(CHANNEL).find((m) => m.ts === quote.ts && m.edits >= 1),
      "the order's outcome replacing the quote",
    );
    const [order] = sandbox.energy.orders();
    if (!order) throw new Error("no order at the sandbox");

    // The delivery webhook, sent twice (a repeat), and one forged; a callback with a wrong token.
    slack.fail("chat.postMessage", { kind: "500" });
    const event = delegationEvent(9101, order.orderId, address);
    expect((await bot.webhook("orders", event)).status).toBe(200);
    expect((await bot.webhook("orders", event)).status).toBe(200);
    const forged = await fetch(`${bot.origin}/webhooks/orders`, {
      method: "POST",
      headers: {
        "x-service-timestamp": String(Math.floor(Date.now() / 1000)),
        "x-service-signature": "sha256=00",
      },
      body: JSON.stringify(event),
    });
    expect(forged.status).toBe(401);
    expect((await fetch(`${bot.origin}/callbacks/host/not-${HOST_CALLBACK_TOKEN}`)).status).toBe(404);

    const text = await eventually(async () => {
      const { text } = await scrape(bot.origin);
      return (sampleValue(text, "opsbot_chat_send_failures_total", { platform: "slack" }) ?? 0) >= 1 && text;
    }, "the failed chat send in the metrics");

    const commands = (verb: string, outcome: string, kind = "command") =>
      sampleValue(text, "opsbot_commands_total", { kind, verb, outcome });
    expect(commands("prices", "ok")).toBe(1);
    expect(commands("unknown", "invalid")).toBe(1);
    expect(commands("energy", "denied")).toBe(1);
    expect(commands("balance", "failed")).toBe(1);
    expect(commands("energy", "ok")).toBe(1);
    expect(commands("energy.confirm", "ok", "action")).toBe(1);
    expect(series(text, "opsbot_commands_total", { kind: "action" })).toHaveLength(1);

    const calls = (endpoint: string, status: string) =>
      sampleValue(text, "opsbot_service_call_seconds_count", { endpoint, status });
    expect(calls("order5m.create", "200")).toBe(sandbox.calls("order5m.create").length);
    expect(calls("order5m.create", "200")).toBe(1);
    expect(calls("userinfo.get", "500")).toBeGreaterThanOrEqual(1);
    expect(calls("userinfo.get", "500")).toBe(
      sandbox.calls("userinfo.get").filter((c) => c.status === 500).length,
    );
    const slow = sampleValue(text, "opsbot_service_call_seconds_bucket", {
      endpoint: "order5m.create",
      status: "200",
      le: "+Inf",
    });
    expect(slow).toBe(1);
    expect(
      sampleValue(text, "opsbot_service_call_seconds_sum", { endpoint: "order5m.create", status: "200" }),
    ).toBeGreaterThan(0);

    // Spend: exactly what the service charged, in TRX.
    expect(sampleValue(text, "opsbot_spend_trx_total", { platform: "slack" })).toBe(
      order.costSun / 1_000_000,
    );

    const webhooks = (route: string, result: string) =>
      sampleValue(text, "opsbot_webhook_deliveries_total", { route, result });
    expect(webhooks("orders", "accepted")).toBe(1);
    expect(webhooks("orders", "duplicate")).toBe(1);
    expect(webhooks("orders", "rejected")).toBe(1);
    expect(webhooks("host", "rejected")).toBe(1);
    expect(webhooks("reports", "accepted")).toBeUndefined();

    // The delivery watch of the order waits 10 minutes in the tracked queue.
    expect(sampleValue(text, "opsbot_queue_jobs", { queue: "tracked", state: "delayed" })).toBe(1);
    // The failed send is retried: its notification is parked in the notify queue.
    expect(sampleValue(text, "opsbot_queue_jobs", { queue: "notify", state: "delayed" })).toBe(1);
    expect(sampleValue(text, "opsbot_chat_send_failures_total", { platform: "slack" })).toBe(1);
  });
});

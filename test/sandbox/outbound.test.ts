import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../src/sandbox/accounts.js";
import { DEFAULT_RETRY_SCHEDULE_MS, type OutboundOptions } from "../../src/sandbox/outbound.js";
import { createSandbox, type Sandbox } from "../../src/sandbox/server.js";
import { createServiceClient } from "../../src/service/client.js";
import { verifyServiceWebhook } from "../../src/webhooks/service-signature.js";
import { type ReceivedRequest, type Receiver, type Responder, startReceiver } from "./webhook-receiver.js";

const PUBLIC = "https://opsbot.test";

let sandbox: Sandbox | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await sandbox?.close();
  await receiver?.close();
  sandbox = receiver = undefined;
});

/** A sandbox whose public origin maps to a local receiver, with a fast retry schedule (3 attempts). */
async function start(responder?: Responder, outbound: OutboundOptions = {}) {
  receiver = await startReceiver(responder);
  sandbox = await createSandbox({
    enforceRateLimits: false,
    outbound: {
      originMap: { [PUBLIC]: receiver.origin },
      retryScheduleMs: [15, 15],
      deliveryTimeoutMs: 150,
      callbackTimeoutMs: 150,
      callbackRetryMs: [10, 10],
      ...outbound,
    },
  });
  const hooks = createServiceClient({
    baseUrl: sandbox.url,
    apiKey: DEFAULT_API_KEY,
    realIp: DEFAULT_REAL_IP,
  }).webhooks;
  return { s: sandbox, r: receiver, hooks };
}

const delegation = (over: Record<string, unknown> = {}) => ({
  event: "delegation.confirmed",
  order_id: "5MABC123",
  order_type: "5m",
  tx_hashes: ["ab".repeat(32)],
  confirmed_at: "2025-03-04T09:30:00Z",
  receive_address: "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW",
  energy_amount: 65_050,
  tx_hash: "ab".repeat(32),
  ...over,
});

const verify = (hit: ReceivedRequest, secrets: string[]) =>
  verifyServiceWebhook({
    rawBody: hit.body,
    timestampHeader: hit.headers["x-service-timestamp"],
    signatureHeader: hit.headers["x-service-signature"],
    secrets,
    nowMs: Date.now(),
  });

describe("order webhooks", () => {
  it("delivers a signed POST that verifies with the endpoint's secret, with the documented headers", async () => {
    const { s, r, hooks } = await start();
    const primary = await hooks.orders.create({ url: `${PUBLIC}/webhooks/orders?tenant=a` });
    s.outbound.orderEvent(s.account, delegation());
    await s.outbound.idle();

    expect(r.received).toHaveLength(1);
    const hit = r.received[0]!;
    expect(hit).toMatchObject({ method: "POST", path: "/webhooks/orders", query: { tenant: "a" } });
    expect(hit.headers["user-agent"]).toBe("service-webhook/1.0");
    expect(hit.headers["x-service-event"]).toBe("delegation.confirmed");
    expect(hit.headers["content-type"]).toMatch(/^application\/json/);
    expect(verify(hit, [primary.secret])).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(hit, ["whsec_not_it"])).toEqual({ ok: false, reason: "mismatch" });
    const body = JSON.parse(hit.body.toString("utf8"));
    expect(body).toEqual({ ...delegation(), delivery_id: Number(hit.headers["x-service-delivery"]) });
    expect(Number.isInteger(body.delivery_id)).toBe(true);

    const [record] = s.outbound.history();
    expect(record).toMatchObject({
      kind: "order",
      state: "delivered",
      attempts: 1,
      lastStatus: 200,
      role: "primary",
      url: `${r.origin}/webhooks/orders?tenant=a`,
    });
  });

  it("retries a failing primary on the schedule, then the backup with its own secret and the same delivery_id", async () => {
    const { s, r, hooks } = await start((req) => (req.path === "/primary" ? 500 : 200));
    const primary = await hooks.orders.create({ url: `${PUBLIC}/primary` });
    const backup = await hooks.orders.create({ url: `${PUBLIC}/backup` });
    s.outbound.orderEvent(s.account, delegation({ order_type: "1h" }));
    await s.outbound.idle();

    expect(r.received.map((h) => h.path)).toEqual(["/primary", "/primary", "/primary", "/backup"]);
    const ids = new Set(r.received.map((h) => h.headers["x-service-delivery"]));
    expect(ids.size).toBe(1);
    const last = r.received[3]!;
    expect(verify(last, [backup.secret])).toEqual({ ok: true, secretIndex: 0 });
    expect(verify(last, [primary.secret])).toEqual({ ok: false, reason: "mismatch" });
    expect(verify(r.received[0]!, [primary.secret]).ok).toBe(true);
    expect(s.outbound.history()[0]).toMatchObject({ state: "delivered", role: "backup", attempts: 4 });
  });

  it("gives up as dead after both schedules; a redirect counts as a failure and is not followed", async () => {
    const { s, r, hooks } = await start((req) => (req.path === "/primary" ? 302 : 503));
    await hooks.orders.create({ url: `${PUBLIC}/primary` });
    await hooks.orders.create({ url: `${PUBLIC}/backup` });
    s.outbound.orderEvent(s.account, delegation());
    await s.outbound.idle();
    expect(r.received.map((h) => h.path)).toEqual([
      "/primary",
      "/primary",
      "/primary",
      "/backup",
      "/backup",
      "/backup",
    ]);
    expect(s.outbound.history()[0]).toMatchObject({ state: "dead", attempts: 6, lastStatus: 503 });
    expect(
      s.outbound
        .history()[0]!
        .log.slice(0, 3)
        .map((a) => a.status),
    ).toEqual([302, 302, 302]);
  });

  it("a receiver that does not answer in time is a failed attempt", async () => {
    const { s, r, hooks } = await start((_req, n) => (n === 0 ? { status: 200, hangMs: 400 } : 200), {
      deliveryTimeoutMs: 60,
    });
    await hooks.orders.create({ url: `${PUBLIC}/slow` });
    s.outbound.orderEvent(s.account, delegation());
    await s.outbound.idle();
    expect(r.received).toHaveLength(2);
    expect(s.outbound.history()[0]!.log.map((a) => a.status)).toEqual(["error", 200]);
  });

  it("skips a paused primary (no attempt) and delivers to the backup", async () => {
    const { s, r, hooks } = await start();
    const primary = await hooks.orders.create({ url: `${PUBLIC}/primary` });
    await hooks.orders.create({ url: `${PUBLIC}/backup` });
    await hooks.orders.patch(primary.id, { is_active: false });
    s.outbound.orderEvent(s.account, delegation());
    await s.outbound.idle();
    expect(r.received.map((h) => h.path)).toEqual(["/backup"]);
    expect(s.outbound.history()[0]).toMatchObject({ state: "delivered", role: "backup", attempts: 1 });
  });

  it("records an event as not sent when the account has no active endpoint", async () => {
    const { s, r, hooks } = await start();
    // Another account's endpoint must not receive this account's events.
    const other = s.accounts.add({ apiKey: "other" });
    const otherHooks = createServiceClient({
      baseUrl: s.url,
      apiKey: "other",
      realIp: DEFAULT_REAL_IP,
    }).webhooks;
    await otherHooks.orders.create({ url: `${PUBLIC}/other` });
    // A report endpoint does not receive order events either.
    await hooks.reports.create({ url: `${PUBLIC}/reports`, role: "primary" });
    s.outbound.orderEvent(s.account, delegation());
    await s.outbound.idle();
    expect(r.received).toHaveLength(0);
    const [record] = s.outbound.history();
    expect(record).toMatchObject({ state: "not_sent", attempts: 0 });
    expect(record!.url).toBeUndefined();
    expect(other.userId).not.toBe(s.account.userId);
  });

  it("signs with the new secret right after rotation", async () => {
    const { s, r, hooks } = await start();
    const created = await hooks.orders.create({ url: `${PUBLIC}/hooks` });
    const rotated = await hooks.orders.rotateSecret(created.id);
    s.outbound.orderEvent(s.account, delegation());
    await s.outbound.idle();
    expect(verify(r.received[0]!, [created.secret])).toEqual({ ok: false, reason: "mismatch" });
    expect(verify(r.received[0]!, [created.secret, rotated.secret])).toEqual({ ok: true, secretIndex: 1 });
  });

  it("uses the 5m schedule for 5m orders and the other schedule for the rest; ids are distinct per event", async () => {
    const { s, r, hooks } = await start(() => 500, { retryScheduleMs: { order5m: [5], order: [5, 5, 5] } });
    await hooks.orders.create({ url: `${PUBLIC}/hooks` });
    s.outbound.orderEvent(s.account, delegation({ order_type: "5m" }));
    s.outbound.orderEvent(s.account, delegation({ event: "activation.confirmed", order_type: "activation" }));
    await s.outbound.idle();
    const [fiveMinute, activation] = s.outbound.history();
    expect(fiveMinute).toMatchObject({ attempts: 2, state: "dead" });
    expect(activation).toMatchObject({ attempts: 4, state: "dead" });
    expect(fiveMinute!.deliveryId).not.toBe(activation!.deliveryId);
    expect(r.received.filter((h) => h.headers["x-service-event"] === "activation.confirmed")).toHaveLength(4);
  });

  it("re-checks the URL rules before each delivery (a stored unsafe URL is never called)", async () => {
    const { s, r, hooks } = await start();
    const created = await hooks.orders.create({ url: `${PUBLIC}/hooks` });
    s.reports.endpoints.get(s.account.userId, "order", created.id)!.url = "https://127.0.0.1/hooks";
    s.outbound.orderEvent(s.account, delegation());
    await s.outbound.idle();
    expect(r.received).toHaveLength(0);
    expect(s.outbound.history()[0]).toMatchObject({ state: "dead", attempts: 3 });
  });

  it("keeps the spec's schedules as defaults (report webhooks: six retries over ~31 h)", () => {
    const total = DEFAULT_RETRY_SCHEDULE_MS.report.reduce((a, b) => a + b, 0);
    expect(DEFAULT_RETRY_SCHEDULE_MS.report).toHaveLength(6);
    expect(total / 3_600_000).toBeCloseTo(31.35, 2);
    expect(DEFAULT_RETRY_SCHEDULE_MS.order5m.reduce((a, b) => a + b, 0)).toBe(60_000);
    expect(DEFAULT_RETRY_SCHEDULE_MS.order.reduce((a, b) => a + b, 0)).toBe(600_000);
  });
});

describe("report webhooks", () => {
  it("go to the report registry only, without X-Service-Event", async () => {
    const { s, r, hooks } = await start();
    await hooks.orders.create({ url: `${PUBLIC}/orders` });
    const reports = await hooks.reports.create({ url: `${PUBLIC}/reports`, role: "primary" });
    s.outbound.reportEvent(s.account, { event: "report.ready", order_id: "REPX", note: "Zürich – 東京" });
    await s.outbound.idle();
    expect(r.received.map((h) => h.path)).toEqual(["/reports"]);
    expect(r.received[0]!.headers["x-service-event"]).toBeUndefined();
    expect(verify(r.received[0]!, [reports.secret]).ok).toBe(true);
    expect(JSON.parse(r.received[0]!.body.toString("utf8")).note).toBe("Zürich – 東京");
  });
});

describe("Host Mode callbacks", () => {
  const params = { address: "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW", order_id: "T123", charged: "2.0000" };

  it("GETs the mapped URL with the query parameters, unsigned, retrying up to 3 attempts", async () => {
    const { s, r } = await start((_req, n) => (n < 2 ? 500 : 200));
    s.outbound.hostCallback(`${PUBLIC}/callbacks/host/tok3n?x=1`, params);
    await s.outbound.idle();
    expect(r.received).toHaveLength(3);
    expect(r.received[2]).toMatchObject({
      method: "GET",
      path: "/callbacks/host/tok3n",
      query: { x: "1", ...params },
    });
    expect(r.received[2]!.headers["x-service-signature"]).toBeUndefined();
    expect(s.outbound.history()[0]).toMatchObject({
      kind: "host",
      state: "delivered",
      attempts: 3,
      lastStatus: 200,
    });
  });

  it("drops the callback after 3 failed attempts (timeouts included)", async () => {
    const { s, r } = await start(() => ({ status: 200, hangMs: 300 }), { callbackTimeoutMs: 40 });
    s.outbound.hostCallback(`${PUBLIC}/callbacks/host/tok3n`, params);
    await s.outbound.idle();
    expect(r.received).toHaveLength(3);
    expect(s.outbound.history()[0]).toMatchObject({ state: "dropped", attempts: 3, lastStatus: "error" });
  });
});

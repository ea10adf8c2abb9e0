import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { wasDelivered, watchDelivery } from "../../src/core/energy/delivery-watch.js";
import type { ConversationRef } from "../../src/core/invocation.js";
import { expectNotifications } from "../../src/core/notices/expectations.js";
import { rememberOrigin } from "../../src/core/origins.js";
import type { Reply } from "../../src/core/reply.js";
import { storedWebhookSecrets } from "../../src/core/setup/webhook-secrets.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import type { DeliveryRecord } from "../../src/sandbox/outbound.js";
import { WEBHOOK_QUEUE } from "../../src/webhooks/index.js";
import { admin, operator, replyButtons, replyText } from "../support/core-harness.js";
import {
  type Bot,
  type BotOptions,
  HOST_TOKEN,
  PUBLIC_URL,
  quietPeriod,
  startBot,
  waitFor,
} from "../webhooks/bot.js";
import { delegationEvent, postSigned, randomKey, registeredSecret, sandboxFor } from "../webhooks/signed.js";

/**
 * The bot's inbound side end to end: the sandbox sends real signed webhooks and Host Mode
 * callbacks over HTTP to the bot's routes, and the test reads what reached each conversation of
 * a recording chat, and what the sandbox recorded about each delivery.
 */
const ordersRoom: ConversationRef = { platform: "slack", id: "C0ORDERS" };
const reportsRoom: ConversationRef = { platform: "telegram", id: "-100200300" };
const hostRoom: ConversationRef = { platform: "slack", id: "C0HOST", threadId: "1700000000.000100" };
const alertRoom: ConversationRef = { platform: "slack", id: "C0ALERTS" };

const open: Bot[] = [];
afterEach(async () => {
  for (const bot of open.splice(0)) {
    await bot.close();
    await bot.sandbox.close();
  }
});

async function bot(options: Partial<BotOptions> = {}): Promise<Bot> {
  const started = await startBot({ sandbox: sandboxFor(), alerts: [alertRoom], ...options });
  open.push(started);
  return started;
}

async function setUp(b: Bot): Promise<Reply> {
  return b.core.handle({ kind: "command", actor: admin, conversation: ordersRoom, text: "setup webhooks" });
}

const texts = (b: Bot, room: ConversationRef): string[] => b.chat.to(room).map((d) => replyText(d.reply));
const hrefs = (reply: Reply): string[] =>
  reply.blocks.flatMap((block) =>
    block.type === "fields"
      ? block.fields.flatMap((f) => f.value.flatMap((s) => (s.href ? [s.href] : [])))
      : block.type === "text"
        ? block.spans.flatMap((s) => (s.href ? [s.href] : []))
        : [],
  );
const history = (b: Bot): DeliveryRecord[] => b.sandbox.outbound.history() as DeliveryRecord[];

async function order5m(b: Bot, address: string) {
  return b.deps.service.order5m.create({
    amount: 65_000,
    receiveAddress: address,
    idempotencyKey: randomKey(),
  });
}

describe("setup webhooks", () => {
  it("registers both receivers at PUBLIC_URL, keeps the secrets in the store and never shows them", async () => {
    const b = await bot();
    const reply = await setUp(b);
    const shown = JSON.stringify(reply);
    expect(replyText(reply)).toContain(`registered ${PUBLIC_URL}/webhooks/orders`);
    expect(replyText(reply)).toContain(`registered ${PUBLIC_URL}/webhooks/reports`);
    expect(reply.visibility).toBe("private");
    expect(b.sandbox.calls("order_webhooks.create").map((c) => c.body)).toEqual([
      { url: `${PUBLIC_URL}/webhooks/orders` },
    ]);
    expect(b.sandbox.calls("report_webhooks.create").map((c) => c.body)).toEqual([
      { url: `${PUBLIC_URL}/webhooks/reports` },
    ]);
    const secrets = [
      ...(await storedWebhookSecrets(b.store, "orders")),
      ...(await storedWebhookSecrets(b.store, "reports")),
    ];
    expect(secrets).toHaveLength(2);
    for (const { secret } of secrets) {
      expect(secret).toMatch(/^whsec_/);
      expect(shown).not.toContain(secret);
      expect(JSON.stringify(b.logger.records)).not.toContain(secret);
    }
    expect(shown).not.toContain("whsec_");
  });

  it("is idempotent: a second run lists first and creates nothing", async () => {
    const b = await bot();
    await setUp(b);
    const again = await setUp(b);
    expect(replyText(again)).toMatch(/Order webhooks: already registered as #\d+ \(primary\)/);
    expect(replyText(again)).toMatch(/Report webhooks: already registered as #\d+ \(primary\)/);
    expect(b.sandbox.calls("order_webhooks.create")).toHaveLength(1);
    expect(b.sandbox.calls("report_webhooks.create")).toHaveLength(1);
    expect(b.sandbox.calls("order_webhooks.list")).toHaveLength(2);
    expect(b.sandbox.calls("order_webhooks.rotate")).toHaveLength(0);
  });

  it("is for admins only: an operator is refused and nothing is registered", async () => {
    const b = await bot();
    const reply = await b.core.handle({
      kind: "command",
      actor: operator,
      conversation: ordersRoom,
      text: "setup webhooks",
    });
    expect(reply.visibility).toBe("private");
    expect(replyText(reply)).toMatch(/admin/i);
    expect(b.sandbox.calls("order_webhooks.create")).toHaveLength(0);
    expect(b.sandbox.calls("order_webhooks.list")).toHaveLength(0);
  });

  it("setup status lists id, url, role and state of each endpoint without secrets", async () => {
    const b = await bot();
    await setUp(b);
    const reply = await b.core.handle({
      kind: "command",
      actor: admin,
      conversation: ordersRoom,
      text: "setup status",
    });
    const text = replyText(reply);
    expect(text).toMatch(
      new RegExp(`#\\d+ primary, active: ${PUBLIC_URL}/webhooks/orders \\(the bot's, secret held\\)`),
    );
    expect(text).toMatch(
      new RegExp(`#\\d+ primary, active: ${PUBLIC_URL}/webhooks/reports \\(the bot's, secret held\\)`),
    );
    expect(text).toContain(`${PUBLIC_URL}/callbacks/host/<token>`);
    expect(text).not.toContain(HOST_TOKEN);
    expect(JSON.stringify(reply)).not.toContain("whsec_");
  });

  it("setup rotate stores the new secret, drops the old one, and deliveries keep verifying", async () => {
    const b = await bot();
    await setUp(b);
    const old = await registeredSecret(b.store, "orders");
    const reply = await b.core.handle({
      kind: "command",
      actor: admin,
      conversation: ordersRoom,
      text: "setup rotate orders",
    });
    expect(replyText(reply)).toMatch(/Order webhooks: new secret for #\d+; the old one was dropped/);
    expect(JSON.stringify(reply)).not.toContain("whsec_");
    expect(b.sandbox.calls("order_webhooks.rotate")).toHaveLength(1);
    expect(b.sandbox.calls("report_webhooks.rotate")).toHaveLength(0);
    const stored = await storedWebhookSecrets(b.store, "orders");
    expect(stored).toHaveLength(1);
    expect(stored[0]?.secret).not.toBe(old);

    const address = tronAddress("rotate");
    const placed = await order5m(b, address);
    await rememberOrigin(b.store, "order", placed.result.orderId, ordersRoom);
    await waitFor(() => b.chat.to(ordersRoom).length === 1, "the delivery signed with the new secret");
    const refused = await postSigned(b.origin, "orders", delegationEvent(9_001, "5MOLD", address), {
      secret: old,
    });
    expect(refused.status).toBe(401);
  });
});

describe("routing deliveries", () => {
  it("sends delegation.confirmed and activation.confirmed to the conversation that placed the order, once each", async () => {
    const b = await bot();
    await setUp(b);
    const address = tronAddress("fresh-address");
    b.sandbox.energy.markInactive(address);
    const placed = await order5m(b, address);
    const orderId = placed.result.orderId;
    // As the energy command does once the order's reply is in (the webhook may already be on its way).
    await rememberOrigin(b.store, "order", orderId, ordersRoom);
    await waitFor(() => b.chat.to(ordersRoom).length >= 2, "the delivery and the activation");
    await quietPeriod();

    const [first, second] = b.chat.to(ordersRoom).map((d) => d.reply);
    const delivery = [first, second].find((r) => r?.summary.startsWith("Energy delivered"));
    const activation = [first, second].find((r) => r?.summary.startsWith("Address activated"));
    expect(b.chat.to(ordersRoom)).toHaveLength(2);
    expect(b.chat.delivered).toHaveLength(2);
    expect(replyText(delivery!)).toContain(orderId);
    expect(replyText(delivery!)).toContain(address);
    expect(replyText(delivery!)).toContain("65,050");
    expect(hrefs(delivery!)).toEqual([`https://tronscan.org/#/transaction/${placed.result.hash}`]);
    expect(replyText(activation!)).toContain(address);
    expect(replyText(activation!)).toContain(`For: ${orderId}`);
    expect(hrefs(activation!)).toEqual([
      `https://tronscan.org/#/transaction/${placed.result.activationHash}`,
    ]);
    expect(await wasDelivered(b.store, orderId)).toBe(true);
    expect(
      history(b)
        .filter((r) => r.kind === "order")
        .map((r) => r.state),
    ).toEqual(["delivered", "delivered"]);
  });

  it("waits for an origin recorded late, and sends what has no origin to the alert channel", async () => {
    const b = await bot({ originGraceMs: [100, 200, 400] });
    await setUp(b);
    // As the energy Confirm does before it sends the order: only this one is waited for.
    await expectNotifications(b.deps, ordersRoom, { kind: "order5m", address: tronAddress("late") });
    const late = await order5m(b, tronAddress("late"));
    const orphan = await order5m(b, tronAddress("orphan"));
    await waitFor(
      () => history(b).filter((r) => r.state === "delivered").length === 2,
      "both webhooks acknowledged",
    );
    await rememberOrigin(b.store, "order", late.result.orderId, ordersRoom);
    await waitFor(() => b.chat.delivered.length === 2, "both notifications");
    await quietPeriod();
    expect(texts(b, ordersRoom)).toHaveLength(1);
    expect(texts(b, ordersRoom)[0]).toContain(late.result.orderId);
    expect(texts(b, alertRoom)).toHaveLength(1);
    expect(texts(b, alertRoom)[0]).toContain(orphan.result.orderId);
    expect(texts(b, alertRoom)[0]).toContain("alert channel");
  });

  it("posts an expected delivery whose origin never came to the expecting conversation after the grace", async () => {
    const b = await bot({ originGraceMs: [50, 100] });
    await setUp(b);
    const address = tronAddress("bookkeeping-lost");
    await expectNotifications(b.deps, ordersRoom, { kind: "order5m", address });
    const placed = await order5m(b, address);
    await waitFor(() => b.chat.to(ordersRoom).length === 1, "the delivery");
    await quietPeriod();
    expect(texts(b, ordersRoom)[0]).toContain(placed.result.orderId);
    expect(texts(b, alertRoom)).toEqual([]);
  });

  it("sends bandwidth.delegated with its fulfillment for each orchestrator address", async () => {
    const b = await bot({ originGraceMs: [100, 200, 400, 800] });
    await setUp(b);
    const [pool, trx, enough] = [tronAddress("bw-pool"), tronAddress("bw-trx"), tronAddress("bw-enough")];
    b.sandbox.energy.setFreeBandwidth(enough, 5_000);
    const idempotencyKey = `test-${randomKey().slice(0, 20)}`;
    for (const address of [pool, trx, enough])
      await expectNotifications(b.deps, ordersRoom, { kind: "orchestrator", address, idempotencyKey });
    await b.deps.service.orchestrator.create({
      idempotencyKey,
      items: [
        { receiveAddress: pool, amount: 65_000 },
        { receiveAddress: trx, amount: 65_000, trx_send: true },
        { receiveAddress: enough, amount: 65_000, check: false },
      ],
    });
    await waitFor(
      () => b.sandbox.energy.bandwidthOrders().length === 3 && b.sandbox.energy.orders().length === 3,
      "the orchestrator's orders",
    );
    for (const o of [...b.sandbox.energy.bandwidthOrders(), ...b.sandbox.energy.orders()]) {
      await rememberOrigin(b.store, "order", o.orderId, ordersRoom);
    }
    await waitFor(() => b.chat.to(ordersRoom).length === 6, "three bandwidth and three energy notifications");
    const bandwidth = texts(b, ordersRoom).filter((t) => t.includes("Fulfillment"));
    expect(bandwidth).toHaveLength(3);
    expect(bandwidth.find((t) => t.includes(pool))).toMatch(
      /Bandwidth delivered[\s\S]*Fulfillment: delegated/,
    );
    expect(bandwidth.find((t) => t.includes(trx))).toMatch(
      /Bandwidth covered with TRX[\s\S]*Fulfillment: trx_send/,
    );
    expect(bandwidth.find((t) => t.includes(enough))).toMatch(
      /Bandwidth not needed[\s\S]*Fulfillment: already_enough[\s\S]*Transactions: none/,
    );
    expect(texts(b, alertRoom)).toEqual([]);
  });

  it("posts report.ready's file into the conversation that asked for the statement, once", async () => {
    const b = await bot();
    await setUp(b);
    const ordered = await b.deps.service.reports.statement({
      client_request_id: `stmt-${randomKey().slice(0, 16)}`,
      address: tronAddress("statement"),
      date_from: "2025-01-01",
      date_to: "2025-01-31",
      format: "csv",
    });
    const orderNo = ordered.data.order_no;
    await rememberOrigin(b.store, "report", orderNo, reportsRoom);
    await waitFor(() => b.chat.to(reportsRoom).length === 1, "the statement file");
    await quietPeriod();
    const [posted] = b.chat.to(reportsRoom);
    const file = posted?.reply.blocks.find((block) => block.type === "file");
    expect(b.chat.delivered).toHaveLength(1);
    expect(file?.type === "file" && file.file.filename).toMatch(/\.csv$/);
    expect(replyText(posted!.reply)).toContain(orderNo);
    expect(b.sandbox.calls("reports.download")).toHaveLength(1);
    const record = history(b).find((r) => r.kind === "report");
    expect(record?.payload.order_id).toBe(orderNo);
    expect(record?.state).toBe("delivered");
  });

  it("sends Host Mode cycles and the pause to the conversation that started Host Mode", async () => {
    const b = await bot();
    const address = tronAddress("host");
    const callbackUrl = `${PUBLIC_URL}/callbacks/host/${HOST_TOKEN}`;
    await b.deps.service.hostMode.add({ address, callbackUrl });
    await rememberOrigin(b.store, "host", address, hostRoom);
    await b.deps.service.hostMode.infinityStart(address);
    await waitFor(() => b.chat.to(hostRoom).length === 1, "the first cycle");
    b.sandbox.energy.hostCycle(address, { energyUsed: "65k" });
    await waitFor(() => b.chat.to(hostRoom).length === 2, "the 65k cycle");
    b.sandbox.energy.hostCycle(address, { idle: true });
    await waitFor(() => b.chat.to(hostRoom).length === 3, "the idle cycle");
    await b.deps.service.hostMode.stop(address);
    await waitFor(() => b.chat.to(hostRoom).length === 4, "the pause");
    await quietPeriod();

    const [first, small, idle, paused] = texts(b, hostRoom);
    const cycles = b.sandbox.energy.hostAddress(address)?.cycles ?? [];
    expect(first).toMatch(/Charged: 4 TRX[\s\S]*first delegation/);
    expect(first).toContain(cycles[0]?.orderId);
    expect(small).toMatch(/Charged: 2 TRX[\s\S]*at most 65,000 energy/);
    expect(idle).toMatch(/Charged: 4 TRX[\s\S]*idle re-delegation/);
    expect(paused).toMatch(/Host Mode was stopped for T/);
    expect(hrefs(b.chat.to(hostRoom)[1]!.reply)).toEqual([
      `https://tronscan.org/#/transaction/${cycles[1]?.hash}`,
    ]);
    expect(b.chat.to(hostRoom)[0]?.conversation.threadId).toBe(hostRoom.threadId);
    expect(b.chat.delivered).toHaveLength(4);
    expect(JSON.stringify(b.logger.records)).not.toContain(HOST_TOKEN);

    // The service retries a callback as is: the repeat is acknowledged and posts nothing.
    const repeat = history(b).find((r) => r.kind === "host" && r.payload.order_id === cycles[1]?.orderId);
    const again = await fetch(repeat!.url!);
    expect(again.status).toBe(200);
    await quietPeriod();
    expect(b.chat.delivered).toHaveLength(4);
  });
});

describe("from the chat command to the notification", () => {
  const press = async (b: Bot, room: ConversationRef, line: string): Promise<Reply> => {
    const quote = await b.core.handle({ kind: "command", actor: operator, conversation: room, text: line });
    const confirm = replyButtons(quote).find((button) => button.style === "primary");
    if (!confirm) throw new Error(`no confirming button: ${replyText(quote)}`);
    return b.core.handle({ kind: "action", actor: operator, conversation: room, token: confirm.token });
  };

  it("energy, then Confirm: the delivery confirmation comes back to the same conversation", async () => {
    const b = await bot();
    await setUp(b);
    const address = tronAddress("e2e-energy");
    const done = await press(b, ordersRoom, `energy ${address} 65k`);
    const [order] = b.sandbox.energy.orders();
    expect(replyText(done)).toContain(order!.orderId);
    await waitFor(
      () => texts(b, ordersRoom).some((t) => t.startsWith("Energy delivered")),
      "the confirmation",
    );
    await quietPeriod();
    const delivered = texts(b, ordersRoom).filter((t) => t.startsWith("Energy delivered"));
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toContain(order!.orderId);
    expect(texts(b, alertRoom)).toEqual([]);
  });

  it("host start, then Confirm: the cycles come back to the same conversation", async () => {
    const b = await bot();
    const address = tronAddress("e2e-host");
    await press(b, hostRoom, `host start ${address}`);
    await waitFor(
      () => texts(b, hostRoom).some((t) => t.startsWith("Host Mode delegation")),
      "the first cycle",
    );
    expect(texts(b, alertRoom)).toEqual([]);
    expect(b.sandbox.calls("host.add")[0]?.body).toMatchObject({
      callback_url: `${PUBLIC_URL}/callbacks/host/${HOST_TOKEN}`,
    });
  });
});

describe("refusing and surviving", () => {
  it("refuses a forged signature, a future and a stale timestamp with 401 and posts nothing", async () => {
    const b = await bot();
    await setUp(b);
    const secret = await registeredSecret(b.store, "orders");
    const now = Math.floor(Date.now() / 1000);
    const body = (id: number) => delegationEvent(id, `5MFORGED${id}`, tronAddress("forged"));
    const forged = await postSigned(b.origin, "orders", body(1), { secret: "whsec_not-the-right-one" });
    const future = await postSigned(b.origin, "orders", body(2), { secret, timestamp: now + 6 * 60 });
    const stale = await postSigned(b.origin, "orders", body(3), { secret, timestamp: now - 6 * 60 });
    const unsigned = await fetch(`${b.origin}/webhooks/orders`, {
      method: "POST",
      body: JSON.stringify(body(4)),
    });
    const tampered = await postSigned(b.origin, "orders", body(5), {
      secret,
      signature: `sha256=${createHash("sha256").update("x").digest("hex")}`,
    });
    expect([forged.status, future.status, stale.status, unsigned.status, tampered.status]).toEqual([
      401, 401, 401, 401, 401,
    ]);
    // Inside the window on both sides is accepted: the refusals above are about the window, not the clock.
    const early = await postSigned(b.origin, "orders", body(6), { secret, timestamp: now - 4 * 60 });
    const ahead = await postSigned(b.origin, "orders", body(7), { secret, timestamp: now + 4 * 60 });
    expect([early.status, ahead.status]).toEqual([200, 200]);
    await waitFor(() => b.chat.delivered.length === 2, "the two accepted deliveries");
    await quietPeriod();
    expect(texts(b, alertRoom).map((t) => /5MFORGED(\d)/.exec(t)?.[1])).toEqual(
      expect.arrayContaining(["6", "7"]),
    );
    expect(b.chat.delivered).toHaveLength(2);
    const refusals = b.logger.records.filter((r) => r.msg?.startsWith("webhook refused"));
    expect(refusals.map((r) => r.obj.reason)).toEqual(["mismatch", "future", "stale", "missing", "mismatch"]);
  });

  it("accepts a secret from ORDER_WEBHOOK_SECRETS and one registered on another instance after start", async () => {
    const configured = "whsec_configured-secret-for-tests";
    const b = await bot({ configured: { orders: [configured], reports: [] } });
    const address = tronAddress("configured");
    const viaConfig = await postSigned(b.origin, "orders", delegationEvent(11, "5MCONF", address), {
      secret: configured,
    });
    expect(viaConfig.status).toBe(200);
    // Another instance registers (writes the store); this one has cached its secrets already.
    await b.core.handle({ kind: "command", actor: admin, conversation: ordersRoom, text: "setup webhooks" });
    const registered = await registeredSecret(b.store, "orders");
    await quietPeriod(); // a mismatch reloads the stored secrets at most every 250 ms
    const viaStore = await postSigned(b.origin, "orders", delegationEvent(12, "5MSTORE", address), {
      secret: registered,
    });
    expect(viaStore.status).toBe(200);
    await waitFor(() => b.chat.delivered.length === 2, "both deliveries");
  });

  it("acknowledges a replayed delivery_id and does not post it again", async () => {
    const b = await bot();
    await setUp(b);
    const secret = await registeredSecret(b.store, "orders");
    const event = delegationEvent(4242, "5MREPLAY", tronAddress("replay"));
    await rememberOrigin(b.store, "order", "5MREPLAY", ordersRoom);
    // Twice at once (the second while the first is still queued), then once more after it was posted.
    const both = await Promise.all([
      postSigned(b.origin, "orders", event, { secret }),
      postSigned(b.origin, "orders", event, { secret }),
    ]);
    await waitFor(() => b.chat.delivered.length === 1, "the first post");
    const later = await postSigned(b.origin, "orders", event, {
      secret,
      timestamp: Math.floor(Date.now() / 1000) + 1,
    });
    await quietPeriod();
    expect([...both.map((r) => r.status), later.status]).toEqual([200, 200, 200]);
    expect(b.chat.delivered).toHaveLength(1);
    expect((await b.queues.counts(WEBHOOK_QUEUE)).waiting).toBe(0);
  });

  it("acknowledges an unknown event and ignores it; a malformed body is 400", async () => {
    const b = await bot();
    await setUp(b);
    const secret = await registeredSecret(b.store, "orders");
    const unknown = await postSigned(
      b.origin,
      "orders",
      { event: "order.refunded", delivery_id: 77, order_id: "5MX" },
      { secret },
    );
    const notJson = await postSigned(b.origin, "orders", undefined, { secret, raw: "{not json" });
    const noId = await postSigned(
      b.origin,
      "orders",
      { event: "delegation.confirmed", order_id: "5MX" },
      { secret },
    );
    const orderEventOnReports = await postSigned(
      b.origin,
      "reports",
      { event: "delegation.confirmed", delivery_id: 78, order_id: "5MX" },
      { secret: await registeredSecret(b.store, "reports") },
    );
    expect([unknown.status, notJson.status, noId.status, orderEventOnReports.status]).toEqual([
      200, 400, 400, 200,
    ]);
    expect(JSON.parse(unknown.text)).toEqual({ ok: true, ignored: true });
    await quietPeriod();
    expect(b.chat.delivered).toEqual([]);
    const counts = await b.queues.counts(WEBHOOK_QUEUE);
    expect(counts.waiting + counts.active + counts.delayed).toBe(0);
  });

  it("answers a wrong callback token exactly like an unknown path, posts nothing and never logs the token", async () => {
    const b = await bot();
    const address = tronAddress("wrong-token");
    await rememberOrigin(b.store, "host", address, hostRoom);
    const query = `address=${address}&order_id=T1&hash=${"ab".repeat(32)}&balance_after=10.0000&idle_cycle=0&charged=4.0000`;
    const wrong = await fetch(`${b.origin}/callbacks/host/${HOST_TOKEN}x?${query}`);
    const nowhere = await fetch(`${b.origin}/no/such/path`);
    const malformed = await fetch(`${b.origin}/callbacks/host/${HOST_TOKEN}?address=nope`);
    const unknown = await fetch(
      `${b.origin}/callbacks/host/${HOST_TOKEN}?event=host_resumed&address=${address}`,
    );
    expect([wrong.status, await wrong.text()]).toEqual([nowhere.status, await nowhere.text()]);
    expect(wrong.status).toBe(404);
    expect(malformed.status).toBe(400);
    expect(unknown.status).toBe(200);
    await quietPeriod();
    expect(b.chat.delivered).toEqual([]);
    const right = await fetch(`${b.origin}/callbacks/host/${HOST_TOKEN}?${query}`);
    expect(right.status).toBe(200);
    await waitFor(() => b.chat.to(hostRoom).length === 1, "the callback with the right token");
    expect(JSON.stringify(b.logger.records)).not.toContain(HOST_TOKEN);
  });

  it("delivers a message after a chat API outage ends", async () => {
    const b = await bot();
    await setUp(b);
    b.chat.setDown(true);
    const placed = await order5m(b, tronAddress("outage"));
    await rememberOrigin(b.store, "order", placed.result.orderId, ordersRoom);
    await waitFor(() => b.chat.failures() >= 3, "sends failing during the outage");
    expect(b.chat.delivered).toEqual([]);
    b.chat.setDown(false);
    await waitFor(() => b.chat.delivered.length === 1, "the message after the outage");
    await quietPeriod();
    expect(b.chat.delivered).toHaveLength(1);
    expect(replyText(b.chat.delivered[0]!.reply)).toContain(placed.result.orderId);
    // The service saw one acknowledged attempt: the outage was the chat's, not the receiver's.
    expect(history(b).find((r) => r.kind === "order")?.attempts).toBe(1);
  });

  it("raises a notice for a 5-minute order never confirmed, and none for a confirmed one", async () => {
    const b = await bot();
    await setUp(b);
    const confirmed = await order5m(b, tronAddress("watched-ok"));
    await rememberOrigin(b.store, "order", confirmed.result.orderId, ordersRoom);
    await waitFor(() => b.chat.to(ordersRoom).length === 1, "the confirmation");
    // The bot's endpoint is paused at the service: the next order's confirmation never arrives.
    const [endpoint] = (await b.deps.service.webhooks.orders.list()).endpoints;
    await b.deps.service.webhooks.orders.patch(endpoint!.id, { is_active: false });
    const silent = await order5m(b, tronAddress("watched-silent"));
    await rememberOrigin(b.store, "order", silent.result.orderId, ordersRoom);
    for (const placed of [confirmed, silent]) {
      const order = {
        orderId: placed.result.orderId,
        address: placed.result.delegateAddress,
        conversation: ordersRoom,
      };
      await watchDelivery(b.deps, order, 100);
    }
    await waitFor(() => b.chat.to(ordersRoom).length === 2, "the notice");
    await quietPeriod();
    const notices = texts(b, ordersRoom).filter((t) => t.startsWith("No on-chain delivery confirmation"));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(silent.result.orderId);
    expect(
      history(b)
        .filter((r) => r.kind === "order")
        .map((r) => r.state),
    ).toEqual(["delivered", "not_sent"]);
  });
});

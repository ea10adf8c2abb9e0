import { beforeEach, describe, expect, it, vi } from "vitest";
import { SUN_PER_TRX } from "../../src/sandbox/accounts.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { ACTIVATION_SUN, ENERGY_1H_PERIODS, energyCostSun } from "../../src/sandbox/price-book.js";
import { createSandbox } from "../../src/sandbox/server.js";
import { requestIdempotencyKey } from "../../src/service/idempotency.js";
import type { OrchestratorItem } from "../../src/service/orchestrator.js";
import {
  type ClientOverrides,
  energyOrdersTo,
  orderEventsFor,
  rejection,
  useSandboxClient,
} from "../support/service-kit.js";

const STEP_MS = 15;
const kit = useSandboxClient({
  sandbox: { enforceRateLimits: false, energy: { orchestratorStepMs: STEP_MS, webhookDelayMs: 1 } },
});
beforeEach(() => {
  kit.sandbox.account.balanceSun = 5_000 * SUN_PER_TRX;
});

const api = (caller: ClientOverrides = {}) => kit.client(caller).orchestrator;

/** Sends what the client would refuse locally, to check the service's own answer. */
const rawCreate = (body: unknown, headers: Record<string, string> = {}) =>
  kit.post({
    family: "orchestrator",
    endpoint: "orchestrator.create",
    path: "/apiv2/orchestrator",
    body,
    headers,
  });

let seq = 0;
const freshAddress = () => tronAddress(`orch-test-${process.pid}-${seq++}`);
const freshKey = () => requestIdempotencyKey(`orch-test-${process.pid}-${seq++}`);
const settled = (key: string, account = kit.sandbox.account) =>
  kit.sandbox.energy.orchestratorSettled(account, key);
const ordersTo = (address: string) => energyOrdersTo(kit.sandbox, address);
const eventsFor = (address: string) => orderEventsFor(kit.sandbox, address);

describe("orchestrator: create, process, status", () => {
  it("accepts (202, nothing charged), chunks large amounts, activates and tops up bandwidth", async () => {
    const big = freshAddress();
    const fresh = freshAddress();
    kit.sandbox.energy.markInactive(fresh);
    const key = freshKey();
    const before = kit.sandbox.account.balanceSun;
    const items: OrchestratorItem[] = [
      { receiveAddress: big, amount: 2_500_000 },
      { receiveAddress: fresh, amount: 100_000 },
    ];
    const accepted = await api().create({ items, idempotencyKey: key });

    expect(accepted.replayed).toBe(false);
    expect(accepted.detail).toMatchObject({ code: 10202, status: "accepted" });
    expect(accepted.detail.data).toMatchObject({
      idempotencyKey: key,
      itemsAccepted: 2,
      statusUrl: `/apiv2/orchestrator/status/${key}`,
    });
    expect(accepted.detail.data.items.map((i) => [i.trackingId, i.energyChunks, i.status])).toEqual([
      [`${key}:${big}`, 3, "queued"],
      [`${key}:${fresh}`, 1, "queued"],
    ]);
    expect(kit.sandbox.account.balanceSun).toBe(before);

    await settled(key);
    const status = await api().status(key);
    expect(status).toMatchObject({ code: 10000, status: "completed" });
    expect(status.data.summary).toMatchObject({
      total: 2,
      completed: 2,
      queued: 0,
      processing: 0,
      failed: 0,
    });
    const [bigItem, freshItem] = status.data.items;
    expect(bigItem).toMatchObject({
      status: "completed",
      energy: { requested: 2_500_000, delegated: 2_500_000, status: "done", chunks: { total: 3, done: 3 } },
      activation: { status: "not_needed", orderId: null, hash: null },
      bandwidth: { status: "skipped", skipReason: "energy_gt_600000" },
      attempts: 1,
    });
    expect(new Set(bigItem?.energy.orderIds).size).toBe(3);
    expect(bigItem?.energy.hashes).toHaveLength(3);
    expect(bigItem?.startedAt).toMatch(/\+00:00$/);
    expect(bigItem?.finishedAt).toMatch(/\+00:00$/);
    expect(ordersTo(big).map((o) => o.amount)).toEqual([833_334, 833_333, 833_333]);

    expect(freshItem).toMatchObject({
      status: "completed",
      energy: { delegated: 100_000, status: "done", chunks: { total: 1, done: 1 } },
      activation: { status: "done" },
      bandwidth: { status: "done", amount: 400, period: "1h", skipReason: null },
    });
    expect(freshItem?.bandwidth.hashes).toHaveLength(1);

    // Charged per chunk from the price book, plus the one activation.
    const chunks = [...ordersTo(big), ...ordersTo(fresh)];
    for (const o of chunks) expect(o.costSun).toBe(energyCostSun(ENERGY_1H_PERIODS, o.amount, o.createdAt));
    const energySun = chunks.reduce((sum, o) => sum + o.costSun, 0);
    expect(before - kit.sandbox.account.balanceSun).toBe(energySun + ACTIVATION_SUN);

    await vi.waitFor(() => expect(eventsFor(big)).toHaveLength(3));
    expect(eventsFor(big).map((e) => [e.event, e.order_type])).toEqual(
      Array(3).fill(["delegation.confirmed", "1h"]),
    );
    expect(eventsFor(big).map((e) => e.order_id)).toEqual(bigItem?.energy.orderIds);
    await vi.waitFor(() => expect(eventsFor(fresh)).toHaveLength(3));
    expect(eventsFor(fresh).find((e) => e.event === "activation.confirmed")).toMatchObject({
      order_id: freshItem?.activation.orderId,
      source: "orchestrator",
      tx_hashes: [freshItem?.activation.hash],
    });
    expect(eventsFor(fresh).find((e) => e.event === "bandwidth.delegated")).toMatchObject({
      order_type: "bandwidth",
      fulfillment: "delegated",
      bandwidth_amount: 400,
      rental_seconds: 3600,
      tx_hashes: freshItem?.bandwidth.hashes,
    });

    const one = await api().status(key, fresh);
    expect(one.data.items.map((i) => i.receiveAddress)).toEqual([fresh]);
    expect(one.data.summary.total).toBe(2);
    expect(kit.sandbox.calls("orchestrator.status").at(-1)?.query).toEqual({ address: fresh });
  });

  it("reports failed, partial and every step outcome; a failed step does not stop energy", async () => {
    const [failed, partial, noBw, enough, unavailable, off, trx] = Array.from({ length: 7 }, freshAddress);
    kit.sandbox.energy.failOrchestratorAddress(failed!, { energy: "failed" });
    kit.sandbox.energy.failOrchestratorAddress(partial!, { energy: "partial", bandwidth: "failed" });
    kit.sandbox.energy.failOrchestratorAddress(noBw!, { bandwidth: "failed" });
    kit.sandbox.energy.setFreeBandwidth(enough!, 1_000);
    kit.sandbox.energy.markInactive(unavailable!);
    kit.sandbox.energy.failOrchestratorAddress(unavailable!, { activation: "unavailable" });
    kit.sandbox.energy.markInactive(off!);
    const key = freshKey();
    const before = kit.sandbox.account.balanceSun;
    await api().create({
      idempotencyKey: key,
      defaults: { bandwidthPeriod: "5m" },
      items: [
        { receiveAddress: failed!, amount: 200_000 },
        { receiveAddress: partial!, amount: 1_200_000 },
        { receiveAddress: noBw!, amount: 100_000 },
        { receiveAddress: enough!, amount: 100_000 },
        { receiveAddress: unavailable!, amount: 100_000 },
        { receiveAddress: off!, amount: 100_000, activation: false, bandwidth: false },
        { receiveAddress: trx!, amount: 100_000, trx_send: true, bandwidthAmount: 5000 },
      ],
    });
    await settled(key);
    const { data } = await api().status(key);
    const by = (address: string) => data.items.find((i) => i.receiveAddress === address)!;

    expect(data.summary).toMatchObject({ total: 7, completed: 5, partial: 1, failed: 1 });
    expect(by(failed!)).toMatchObject({ status: "failed", energy: { delegated: 0, status: "failed" } });
    expect(by(partial!)).toMatchObject({
      status: "partial",
      energy: { requested: 1_200_000, delegated: 600_000, status: "partial", chunks: { total: 2, done: 1 } },
      bandwidth: { status: "skipped", skipReason: "energy_gt_600000" },
    });
    expect(by(noBw!)).toMatchObject({ status: "completed", bandwidth: { status: "failed" } });
    expect(by(enough!)).toMatchObject({
      status: "completed",
      bandwidth: { status: "enough", orderId: null },
    });
    expect(by(unavailable!).activation.status).toBe("skipped_unavailable");
    expect(by(off!)).toMatchObject({
      activation: { status: "skipped" },
      bandwidth: { status: "skipped", skipReason: "option_off" },
    });
    expect(by(trx!).bandwidth).toMatchObject({ status: "done", amount: 5000, period: "5m" });
    await vi.waitFor(() => expect(eventsFor(trx!).some((e) => e.event === "bandwidth.delegated")).toBe(true));
    expect(eventsFor(trx!).find((e) => e.event === "bandwidth.delegated")).toMatchObject({
      fulfillment: "trx_send",
      rental_seconds: 300,
    });

    expect(ordersTo(failed!)).toHaveLength(0);
    expect(
      kit.sandbox.energy.activations().filter((a) => a.address === unavailable || a.address === off),
    ).toEqual([]);
    const all = [failed, partial, noBw, enough, unavailable, off, trx].flatMap((a) => ordersTo(a!));
    expect(before - kit.sandbox.account.balanceSun).toBe(all.reduce((sum, o) => sum + o.costSun, 0));
  });

  it("stops for balance: the address ends insufficient_balance and queued ones are not attempted", async () => {
    const addresses = Array.from({ length: 6 }, freshAddress);
    const key = freshKey();
    kit.sandbox.account.balanceSun = 100 * SUN_PER_TRX;
    await api().create({
      idempotencyKey: key,
      items: addresses.map((a) => ({ receiveAddress: a, amount: 3_000_000 })),
    });
    await settled(key);
    const { data } = await api().status(key);

    expect(data.summary).toMatchObject({ total: 6, insufficient_balance: 6, completed: 0 });
    const delivered = data.items.filter((i) => i.energy.delegated > 0);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.energy).toMatchObject({
      delegated: 1_000_000,
      status: "partial",
      chunks: { done: 1 },
    });
    const sixth = data.items[5];
    expect(sixth).toMatchObject({ status: "insufficient_balance", attempts: 0, startedAt: null });
    const charged = addresses.flatMap(ordersTo);
    expect(charged).toHaveLength(1);
    expect(100 * SUN_PER_TRX - kit.sandbox.account.balanceSun).toBe(charged[0]?.costSun);
  });

  it("a payout run: 100 items with defaults, five at a time, each with its own status; a replay is 208", async () => {
    const addresses = Array.from({ length: 100 }, freshAddress);
    const inactive = addresses[7] ?? "";
    kit.sandbox.energy.markInactive(inactive);
    const key = freshKey();
    const items = addresses.map((a) => ({ receiveAddress: a, amount: 61_000 }));
    const defaults = { bandwidth: false, activation: false };
    const accepted = await api().create({ idempotencyKey: key, items, defaults });
    expect(accepted.detail.data.itemsAccepted).toBe(100);
    let most = 0;
    const order = kit.sandbox.energy.orchestratorOrder(kit.sandbox.account, key);
    const watch = setInterval(() => {
      most = Math.max(most, order?.items.filter((i) => i.status === "processing").length ?? 0);
    }, 1);
    await settled(key);
    clearInterval(watch);
    expect(most).toBeLessThanOrEqual(5);
    const { data } = await api().status(key);
    expect(data.summary).toMatchObject({ total: 100, completed: 100 });
    expect(data.items.map((i) => i.receiveAddress)).toEqual(addresses);
    for (const item of data.items)
      expect(item.bandwidth).toMatchObject({ status: "skipped", skipReason: "option_off" });
    expect(data.items[7]?.activation.status).toBe("skipped");
    const again = await api().create({ idempotencyKey: key, items, defaults });
    expect(again.replayed).toBe(true);
    expect(addresses.flatMap(ordersTo)).toHaveLength(100);
  });

  it("cancel removes the queued addresses and leaves the ones picked up running", async () => {
    const addresses = Array.from({ length: 7 }, freshAddress);
    const key = freshKey();
    await api().create({
      idempotencyKey: key,
      items: addresses.map((a) => ({ receiveAddress: a, amount: 100_000 })),
    });
    await vi.waitFor(
      () => {
        const order = kit.sandbox.energy.orchestratorOrder(kit.sandbox.account, key);
        expect(order?.items.filter((i) => i.status === "processing")).toHaveLength(5);
      },
      { interval: 2, timeout: 2_000 },
    );
    const cancelled = await api().cancel(key);
    expect(cancelled).toMatchObject({ code: 10005, status: "cancelled", data: { cancelled: 2 } });
    expect(await api().cancel(key)).toMatchObject({ data: { cancelled: 0 } });

    await settled(key);
    const { data } = await api().status(key);
    expect(data.summary).toMatchObject({ total: 7, completed: 5, cancelled: 2 });
    expect(addresses.slice(5).flatMap(ordersTo)).toEqual([]);
    expect(addresses.slice(0, 5).flatMap(ordersTo)).toHaveLength(5);
  });

  it("a clientRequestId in the body is the key when the header is absent", async () => {
    const address = freshAddress();
    const reply = await rawCreate({
      clientRequestId: "client-0001",
      items: [{ receiveAddress: address, amount: 61_000 }],
    });
    expect(reply.status).toBe(202);
    expect(JSON.parse(reply.body.toString()).detail.data.idempotencyKey).toBe("client-0001");
    await settled("client-0001");
    const status = await api().status("client-0001");
    expect(status.data).toMatchObject({ idempotencyKey: "client-0001", clientRequestId: "client-0001" });
    expect(status.data.summary.completed).toBe(1);
  });
});

describe("orchestrator: idempotency", () => {
  it("same key and body: 208 with the original order; a different body: 409 code 4090", async () => {
    const address = freshAddress();
    const key = freshKey();
    const request = { idempotencyKey: key, items: [{ receiveAddress: address, amount: 61_000 }] };
    const first = await api().create(request);
    const again = await api().create(request);

    expect(again.replayed).toBe(true);
    expect(again.detail.data.requestId).toBe(first.detail.data.requestId);
    expect(again.detail.data.items).toEqual(first.detail.data.items);
    expect(Date.parse(again.detail.data.originalAcceptedAt ?? "")).not.toBeNaN();

    const conflict = await rejection(
      api().create({ ...request, items: [{ receiveAddress: address, amount: 62_000 }] }),
    );
    expect(conflict).toMatchObject({ httpStatus: 409, code: 4090, retryable: false });
    expect(conflict.message).toMatch(/IDEMPOTENCY_CONFLICT/);
    await settled(key);
    expect(ordersTo(address)).toHaveLength(1);
    const statuses = kit.sandbox
      .calls("orchestrator.create")
      .filter((c) => c.headers["x-idempotency-key"] === key);
    expect(statuses.map((c) => c.status)).toEqual([202, 208, 409]);
  });
});

describe("orchestrator: errors", () => {
  const address = tronAddress("orch-errors");
  const item = { receiveAddress: address, amount: 100_000 };
  const header = () => ({ "x-idempotency-key": freshKey() });

  const tooMany = Array.from({ length: 101 }, (_, i) => ({ ...item, receiveAddress: tronAddress(`x${i}`) }));
  const second = { receiveAddress: tronAddress("orch-errors-2"), amount: 49_950_000 };
  it.each([
    { name: "address format", code: 5004, body: { items: [{ ...item, receiveAddress: "Tbad" }] } },
    { name: "amount below range", code: 5004, body: { items: [{ ...item, amount: 60_000 }] } },
    { name: "amount above range", code: 5004, body: { items: [{ ...item, amount: 50_000_001 }] } },
    { name: "bandwidthAmount", code: 5004, body: { items: [{ ...item, bandwidthAmount: 1000 }] } },
    { name: "bandwidthPeriod", code: 5004, body: { items: [item], defaults: { bandwidthPeriod: "2h" } } },
    { name: "empty items", code: 5005, body: { items: [] } },
    { name: "duplicate address", code: 5006, body: { items: [item, item] } },
    { name: "total above 50 000 000", code: 5012, body: { items: [item, second] } },
    { name: "more than 100 items", code: 4220, body: { items: tooMany } },
  ])("$name: refused locally (no call) with code $code, and the service agrees", async ({ body, code }) => {
    const before = kit.sandbox.calls("orchestrator.create").length;
    const local = await rejection(
      api().create({ ...(body as { items: OrchestratorItem[] }), idempotencyKey: freshKey() }),
    );
    expect(local).toMatchObject({ code, httpStatus: undefined, retryable: false });
    expect(kit.sandbox.calls("orchestrator.create")).toHaveLength(before);

    const served = await rejection(rawCreate(body, header()));
    expect(served).toMatchObject({ code, httpStatus: code === 4220 ? 422 : 400, retryable: false });
  });

  it("the service's other 400s: body not an object 5004, bad key 5009, no key 5010; 4220 with data.errors", async () => {
    expect(await rejection(rawCreate([item], header()))).toMatchObject({ httpStatus: 400, code: 5004 });
    expect(await rejection(rawCreate({ items: [item] }, { "x-idempotency-key": "short" }))).toMatchObject({
      httpStatus: 400,
      code: 5009,
    });
    expect(await rejection(rawCreate({ items: [item], clientRequestId: "bad id!" }))).toMatchObject({
      code: 5009,
    });
    expect(await rejection(rawCreate({ items: [item] }))).toMatchObject({ httpStatus: 400, code: 5010 });
    const typed = await rejection(
      rawCreate({ items: [{ ...item, amount: "lots", check: "yes" }] }, header()),
    );
    expect(typed).toMatchObject({ httpStatus: 422, code: 4220 });
    expect(typed.details).toEqual(["items.0.amount: must be an integer", "items.0.check: must be a boolean"]);
    await expect(api().create({ items: [item], idempotencyKey: "short" })).rejects.toMatchObject({
      code: 5009,
    });
  });

  it("401 -1 for a wrong key; 402 1004 below 4 TRX; nothing stored", async () => {
    const key = freshKey();
    const wrong = await rejection(api({ apiKey: "nope" }).create({ items: [item], idempotencyKey: key }));
    expect(wrong).toMatchObject({ httpStatus: 401, code: -1, retryable: false });

    kit.sandbox.account.balanceSun = 3 * SUN_PER_TRX;
    const poor = await rejection(api().create({ items: [item], idempotencyKey: key }));
    expect(poor).toMatchObject({ httpStatus: 402, code: 1004, retryable: false });
    expect(kit.sandbox.energy.orchestratorOrder(kit.sandbox.account, key)).toBeUndefined();
    expect(kit.sandbox.account.balanceSun).toBe(3 * SUN_PER_TRX);
  });

  it("404 -1 for an unknown key or another account's order, on status and cancel", async () => {
    const other = kit.sandbox.accounts.add({ apiKey: "orch-other-key" });
    const key = freshKey();
    await api({ apiKey: other.apiKey }).create({ items: [item], idempotencyKey: key });
    for (const call of [() => api().status(key), () => api().cancel(key), () => api().status(freshKey())]) {
      expect(await rejection(call())).toMatchObject({ httpStatus: 404, code: -1, retryable: false });
    }
    expect(await rejection(api().status(key, tronAddress("not-in-order")))).toMatchObject({
      httpStatus: 404,
    });
    await settled(key, other);
    expect((await api({ apiKey: other.apiKey }).status(key)).data.summary.completed).toBe(1);
  });

  it("503 5003: not accepted, nothing stored or charged, retryable", async () => {
    const key = freshKey();
    const before = kit.sandbox.account.balanceSun;
    kit.sandbox.energy.setOrchestratorUnavailable(true);
    const error = await rejection(api().create({ items: [item], idempotencyKey: key }));
    kit.sandbox.energy.setOrchestratorUnavailable(false);
    expect(error).toMatchObject({ httpStatus: 503, code: 5003, retryable: true });
    expect(await rejection(api().status(key))).toMatchObject({ httpStatus: 404 });
    expect(kit.sandbox.account.balanceSun).toBe(before);
  });

  it("429 5011: a fourth order while three are in flight; 429 rate limit message", async () => {
    const slow = await createSandbox({ enforceRateLimits: false, energy: { orchestratorStepMs: 5_000 } });
    try {
      const client = api({ baseUrl: slow.url });
      for (let i = 0; i < 3; i++) await client.create({ items: [item], idempotencyKey: freshKey() });
      const error = await rejection(client.create({ items: [item], idempotencyKey: freshKey() }));
      expect(error).toMatchObject({ kind: "rate_limited", httpStatus: 429, code: 5011, retryable: true });
      expect(slow.calls("orchestrator.create").map((c) => c.status)).toEqual([202, 202, 202, 429]);

      slow.inject("orchestrator.status", {
        kind: "reply",
        reply: { status: 429, json: { message: "API rate limit exceeded" }, headers: { "retry-after": "1" } },
      });
      const limited = await rejection(client.status(freshKey()));
      expect(limited).toMatchObject({
        kind: "rate_limited",
        message: "API rate limit exceeded",
        retryAfterMs: 1_000,
      });
    } finally {
      await slow.close();
    }
  });

  it("credentials_revoked when the key is disabled mid-order", async () => {
    const owner = kit.sandbox.accounts.add({ apiKey: "orch-revoked-key" });
    const key = freshKey();
    await api({ apiKey: owner.apiKey }).create({
      items: [item, { ...item, receiveAddress: freshAddress() }],
      idempotencyKey: key,
    });
    owner.blocked = true;
    await settled(key, owner);
    owner.blocked = false;
    const { data } = await api({ apiKey: owner.apiKey }).status(key);
    expect(data.summary).toMatchObject({ total: 2, credentials_revoked: 2 });
    expect(kit.sandbox.energy.orders().filter((o) => o.userId === owner.userId)).toEqual([]);
  });
});

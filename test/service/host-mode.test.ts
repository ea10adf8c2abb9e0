import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP, SUN_PER_TRX } from "../../src/sandbox/accounts.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { type Receiver, startReceiver } from "../sandbox/webhook-receiver.js";
import { type ClientOverrides, rejection, useSandboxClient } from "../support/service-kit.js";

const FIRST_CYCLE_MS = 30;
const PUBLIC = "https://opsbot.test";
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
// Started after the receiver, closed before it.
const kit = useSandboxClient({
  sandbox: () => ({
    energy: { hostFirstCycleMs: FIRST_CYCLE_MS },
    outbound: { originMap: { [PUBLIC]: receiver.origin }, callbackRetryMs: [5, 5] },
  }),
});
beforeEach(() => {
  kit.sandbox.account.balanceSun = 100 * SUN_PER_TRX;
  kit.sandbox.account.blocked = false;
  kit.sandbox.energy.setHostStartRequirement(4 * SUN_PER_TRX);
});

const api = (caller: ClientOverrides = {}) => kit.client(caller).hostMode;

/** A request the client would never send (no header key, odd body), to check the service's answer. */
async function raw(path: string, body: unknown, auth: "key+ip" | "none" = "key+ip") {
  const headers: Record<string, string> = auth === "none" ? { "x-real-ip": DEFAULT_REAL_IP } : {};
  const reply = await kit.post({ family: "host", endpoint: "host.raw", path, body, auth, headers });
  return { status: reply.status, json: JSON.parse(reply.body.toString()) as Record<string, unknown> };
}

let seq = 0;
const freshAddress = () => tronAddress(`host-test-${process.pid}-${seq++}`);
const callbackUrl = (address: string) => `${PUBLIC}/callbacks/host/token-${address}`;
const callbacksFor = (address: string) => receiver.received.filter((r) => r.query.address === address);

const otherAccount = () =>
  kit.sandbox.accounts.byKey("host-other-key") ?? kit.sandbox.accounts.add({ apiKey: "host-other-key" });

async function registered(address: string) {
  await api().add({ address, callbackUrl: callbackUrl(address) });
  return address;
}

describe("host.add", () => {
  it("adds a new address inactive, then only updates the callback URL of an own address", async () => {
    const address = freshAddress();
    const before = kit.sandbox.account.balanceSun;
    const added = await api().add({ address, callbackUrl: callbackUrl(address) });
    expect(added.message).toBe("Address added successfully");
    expect(added.data).toMatchObject({ address, callback_url: callbackUrl(address) });
    expect(Date.parse(added.data.timestamp)).not.toBeNaN();
    expect(kit.sandbox.energy.hostAddress(address)).toMatchObject({
      status: "inactive",
      callbackUrl: callbackUrl(address),
    });

    const updated = await api().add({ address, callbackUrl: `${PUBLIC}/callbacks/host/other` });
    expect(updated.message).toBe("Address callback URL updated successfully");
    expect(updated.data.callback_url).toBe(`${PUBLIC}/callbacks/host/other`);
    expect(kit.sandbox.energy.hostAddress(address)?.status).toBe("inactive");
    expect(kit.sandbox.account.balanceSun).toBe(before);

    const calls = kit.sandbox.calls("host.add").slice(-2);
    expect(calls.map((c) => c.status)).toEqual([200, 200]);
    expect(calls[0]?.headers["x-api-key"]).toBe(DEFAULT_API_KEY);
    expect(calls[0]?.body).toEqual({ address, callback_url: callbackUrl(address) });
  });

  it("-1: an address of another account", async () => {
    const address = freshAddress();
    await api({ apiKey: otherAccount().apiKey }).add({ address });
    const error = await rejection(api().add({ address, callbackUrl: callbackUrl(address) }));
    expect(error).toMatchObject({
      family: "host",
      endpoint: "host.add",
      httpStatus: 200,
      code: -1,
      message: "Address belongs to another user",
      retryable: false,
    });
    expect(kit.sandbox.energy.hostAddress(address)?.callbackUrl).toBeNull();
  });

  it.each([
    "http://localhost/cb",
    "http://api.localhost/cb",
    "http://127.0.0.1/cb",
    "http://10.1.2.3/cb",
    "http://192.168.0.5/cb",
    "http://169.254.169.254/latest",
    "http://[::1]/cb",
    "http://[fe80::1]/cb",
    "http://224.0.0.1/cb",
    "http://printer.local/cb",
    "ftp://example.com/cb",
    "not a url",
  ])("-1: callback URL %s is rejected", async (url) => {
    const address = freshAddress();
    const error = await rejection(api().add({ address, callbackUrl: url }));
    expect(error).toMatchObject({
      httpStatus: 200,
      code: -1,
      message: "Invalid callback URL. Only public HTTP/HTTPS URLs are allowed",
    });
    expect(kit.sandbox.energy.hostAddress(address)).toBeUndefined();
  });

  it("accepts public http and https URLs up to 2048 characters; longer is refused by both sides", async () => {
    const plain = await api().add({ address: freshAddress(), callbackUrl: "http://example.com/cb?secret=1" });
    expect(plain.data.callback_url).toBe("http://example.com/cb?secret=1");
    const longest = `${PUBLIC}/${"a".repeat(2048 - PUBLIC.length - 1)}`;
    expect((await api().add({ address: freshAddress(), callbackUrl: longest })).data.callback_url).toBe(
      longest,
    );

    const address = freshAddress();
    const tooLong = `${longest}b`;
    const local = await rejection(api().add({ address, callbackUrl: tooLong }));
    expect(local).toMatchObject({ code: -1, httpStatus: undefined });
    expect(
      kit.sandbox.calls("host.add").filter((c) => (c.body as { address?: string }).address === address),
    ).toEqual([]);
    const served = await raw("/apiv2/time/add", { address, callback_url: tooLong });
    expect(served.json).toMatchObject({ code: -1, data: null });
  });

  it("infinity: true starts when the balance covers a cycle; otherwise stays inactive with the same reply", async () => {
    const started = freshAddress();
    const reply = await api().add({ address: started, callbackUrl: callbackUrl(started), infinity: true });
    expect(kit.sandbox.energy.hostAddress(started)).toMatchObject({ status: "active", mode: "infinity" });

    kit.sandbox.energy.setHostStartRequirement(200 * SUN_PER_TRX);
    const stays = freshAddress();
    const same = await api().add({ address: stays, callbackUrl: callbackUrl(stays), infinity: true });
    expect(kit.sandbox.energy.hostAddress(stays)).toMatchObject({ status: "inactive", mode: null });
    expect(same.message).toBe(reply.message);
    expect(Object.keys(same.data)).toEqual(Object.keys(reply.data));

    await vi.waitFor(() => expect(callbacksFor(started)).toHaveLength(1));
    expect(callbacksFor(started)[0]?.query).toMatchObject({ charged: "4.0000", idle_cycle: "0" });
    expect(callbacksFor(stays)).toHaveLength(0);
  });
});

describe("host.infinitystart and cycles", () => {
  it("opens an infinity order; the first delegation charges 4 TRX and calls back without energy_used", async () => {
    const address = await registered(freshAddress());
    const before = kit.sandbox.account.balanceSun;
    const started = await api().infinityStart(address);
    expect(started.data).toMatchObject({ address, mode: "infinity", status: "active" });
    expect(started.data.order_id).toEqual(expect.any(Number));
    expect(kit.sandbox.account.balanceSun).toBe(before);

    await vi.waitFor(() => expect(callbacksFor(address)).toHaveLength(1));
    const [first] = callbacksFor(address);
    const cycle = kit.sandbox.energy.hostAddress(address)?.cycles[0];
    expect(before - kit.sandbox.account.balanceSun).toBe(4 * SUN_PER_TRX);
    expect(first?.method).toBe("GET");
    expect(first?.path).toBe(`/callbacks/host/token-${address}`);
    expect(first?.query).toEqual({
      address,
      order_id: cycle?.orderId,
      hash: cycle?.hash,
      balance_after: "96.0000",
      idle_cycle: "0",
      charged: "4.0000",
    });
    expect(first?.query.order_id).toMatch(/^T\d+$/);
  });

  it("charges later cycles by the previous transfer: 65k 2 TRX, 131k 4 TRX, idle 4 TRX, no history 4 TRX", async () => {
    const address = await registered(freshAddress());
    await api().infinityStart(address);
    await vi.waitFor(() => expect(callbacksFor(address)).toHaveLength(1));
    const cases = [
      {
        request: { energyUsed: "65k" as const },
        sun: 2,
        query: { energy_used: "65k", charged: "2.0000", idle_cycle: "0" },
      },
      {
        request: { energyUsed: "131k" as const },
        sun: 4,
        query: { energy_used: "131k", charged: "4.0000", idle_cycle: "0" },
      },
      { request: { idle: true }, sun: 4, query: { charged: "4.0000", idle_cycle: "1" } },
      { request: {}, sun: 4, query: { charged: "4.0000", idle_cycle: "0" } },
    ];
    for (const [i, c] of cases.entries()) {
      const before = kit.sandbox.account.balanceSun;
      const cycle = kit.sandbox.energy.hostCycle(address, c.request);
      expect(before - kit.sandbox.account.balanceSun).toBe(c.sun * SUN_PER_TRX);
      await vi.waitFor(() => expect(callbacksFor(address)).toHaveLength(i + 2));
      const query = callbacksFor(address)[i + 1]?.query;
      expect(query).toMatchObject({ ...c.query, order_id: cycle.orderId, hash: cycle.hash });
      expect("energy_used" in (query ?? {})).toBe("energy_used" in c.query);
      expect(query?.balance_after).toBe((kit.sandbox.account.balanceSun / SUN_PER_TRX).toFixed(4));
    }
    expect(new Set(callbacksFor(address).map((r) => r.query.order_id)).size).toBe(5);
  });

  it("-4 not registered (or another account's), -5 already active, -6 open order, -2 insufficient", async () => {
    const notFound = await rejection(api().infinityStart(freshAddress()));
    expect(notFound).toMatchObject({ httpStatus: 200, code: -4, retryable: false });
    const foreign = freshAddress();
    await api({ apiKey: otherAccount().apiKey }).add({ address: foreign });
    expect(await rejection(api().infinityStart(foreign))).toMatchObject({ code: -4 });

    const active = await registered(freshAddress());
    await api().infinityStart(active);
    const again = await rejection(api().infinityStart(active));
    expect(again).toMatchObject({ code: -5, message: "Host mode is already active for this address" });

    const open = await registered(freshAddress());
    kit.sandbox.energy.openHostOrder(open);
    expect(await rejection(api().infinityStart(open))).toMatchObject({
      code: -6,
      message: "There is already an open order for this address",
    });

    const poor = await registered(freshAddress());
    kit.sandbox.energy.setHostStartRequirement(8 * SUN_PER_TRX);
    kit.sandbox.account.balanceSun = 5 * SUN_PER_TRX;
    const short = await rejection(api().infinityStart(poor));
    expect(short).toMatchObject({ code: -2, retryable: false });
    expect(short.message).toMatch(/Required: 8\.0000 TRX, available: 5\.0000 TRX/);
    expect(kit.sandbox.energy.hostAddress(poor)?.status).toBe("inactive");
    expect(kit.sandbox.calls("host.infinitystart").every((c) => c.status === 200)).toBe(true);
  });

  it("402 1004 below 4 TRX and 403 1005 for a blocked key reject before the endpoint", async () => {
    const address = await registered(freshAddress());
    kit.sandbox.account.balanceSun = 3 * SUN_PER_TRX;
    expect(await rejection(api().infinityStart(address))).toMatchObject({ httpStatus: 402, code: 1004 });
    expect(await rejection(api().add({ address: freshAddress() }))).toMatchObject({
      httpStatus: 402,
      code: 1004,
    });
    kit.sandbox.account.balanceSun = 100 * SUN_PER_TRX;
    kit.sandbox.account.blocked = true;
    expect(await rejection(api().infinityStart(address))).toMatchObject({ httpStatus: 403, code: 1005 });
    expect(await rejection(api().stop(address))).toMatchObject({ httpStatus: 403, code: 1005 });
    expect(kit.sandbox.energy.hostAddress(address)?.status).toBe("inactive");
  });

  it("-1 for a bad key, an IP off the whitelist, a missing key and a bad address; the body key works", async () => {
    const address = await registered(freshAddress());
    const invalid = { code: -1, httpStatus: 200, message: "Invalid API key or IP not in whitelist" };
    expect(await rejection(api({ apiKey: "nope" }).stop(address))).toMatchObject(invalid);
    expect(await rejection(api({ realIp: "198.51.100.1" }).stop(address))).toMatchObject(invalid);

    const missing = await raw("/apiv2/time/stop", { address }, "none");
    expect(missing).toEqual({
      status: 200,
      json: { code: -1, msg: "API key required in X-API-KEY header or request body", data: null },
    });
    const viaBody = await raw("/apiv2/time/infinitystart", { address, api_key: DEFAULT_API_KEY }, "none");
    expect(viaBody.json).toMatchObject({ code: 0, data: { address, status: "active" } });

    const local = await rejection(api().stop("T123"));
    expect(local).toMatchObject({
      code: -1,
      message: "Invalid TRC-20 address format",
      httpStatus: undefined,
    });
    const served = await raw("/apiv2/time/stop", { address: "T123" });
    expect(served.json).toEqual({ code: -1, msg: "Invalid TRC-20 address format", data: null });
  });

  it("422 with a detail array for a body of the wrong shape", async () => {
    const body = { address: 42, infinity: "yes" };
    const reply = kit.post({ family: "host", endpoint: "host.add", path: "/apiv2/time/add", body });
    const error = await rejection(reply);
    expect(error).toMatchObject({ httpStatus: 422, code: undefined });
    expect(error.details).toEqual([
      "address: Field required (string)",
      "infinity: Input should be a valid boolean",
    ]);
  });

  it.each([
    ["Failed to activate host mode (retry)", true],
    ["Database error while activating infinity mode; retry", true],
    ["Internal server error", false],
  ])("-1 %s: retryable %s", async (msg, retryable) => {
    kit.sandbox.inject("host.infinitystart", {
      kind: "reply",
      reply: { status: 200, json: { code: -1, msg, data: null } },
    });
    const error = await rejection(api().infinityStart(freshAddress()));
    expect(error).toMatchObject({ code: -1, message: msg, retryable, httpStatus: 200, kind: "http" });
  });

  it("a code 0 reply without its data is an invalid reply", async () => {
    kit.sandbox.inject("host.stop", {
      kind: "reply",
      reply: { status: 200, json: { code: 0, msg: "ok", data: null } },
    });
    expect(await rejection(api().stop(freshAddress()))).toMatchObject({ kind: "invalid_reply" });
  });
});

describe("host.stop", () => {
  it("stops, closes the order, sends host_paused and needs no balance; a second stop is -7", async () => {
    const address = await registered(freshAddress());
    await api().infinityStart(address);
    await vi.waitFor(() => expect(callbacksFor(address)).toHaveLength(1));
    kit.sandbox.account.balanceSun = 1 * SUN_PER_TRX;

    const stopped = await api().stop(address);
    expect(stopped.data).toMatchObject({ address, orders_closed: 1, status: "inactive" });
    expect(kit.sandbox.energy.hostAddress(address)).toMatchObject({
      status: "inactive",
      orderId: null,
      usedCycles: 0,
    });
    await vi.waitFor(() => expect(callbacksFor(address)).toHaveLength(2));
    const paused = callbacksFor(address)[1]?.query;
    expect(paused).toMatchObject({ event: "host_paused", address, reason: "stopped" });
    expect(Date.parse(paused?.timestamp ?? "")).not.toBeNaN();
    expect(kit.sandbox.energy.hostAddress(address)?.callbackUrl).toBe(callbackUrl(address));

    const again = await rejection(api().stop(address));
    expect(again).toMatchObject({ code: -7, message: "Host mode is already inactive", httpStatus: 200 });
    expect(await rejection(api().stop(freshAddress()))).toMatchObject({ code: -4 });
  });

  it("a stop before the first delegation means it never happens (nothing charged)", async () => {
    const address = await registered(freshAddress());
    const before = kit.sandbox.account.balanceSun;
    await api().infinityStart(address);
    await api().stop(address);
    await new Promise((r) => setTimeout(r, FIRST_CYCLE_MS * 3));
    expect(kit.sandbox.account.balanceSun).toBe(before);
    expect(kit.sandbox.energy.hostAddress(address)?.cycles).toEqual([]);
    await vi.waitFor(() => expect(callbacksFor(address)).toHaveLength(1));
    expect(callbacksFor(address)[0]?.query.event).toBe("host_paused");
    expect(
      kit.sandbox.outbound.history().filter((r) => r.kind === "host" && r.payload.address === address),
    ).toHaveLength(1);
  });
});

describe("host.status (Time Status)", () => {
  it("reports infinity as active with unlimited (null) cycles and the order id; inactive after a stop", async () => {
    const address = await registered(freshAddress());
    const inactive = await api().status(address);
    expect(inactive.data).toMatchObject({ address, status: "inactive", order_id: null });
    const started = await api().infinityStart(address);
    const active = await api().status(address);
    expect(active.data).toMatchObject({
      address,
      status: "active",
      mode: "infinity",
      cycles_ordered: null,
      cycles_remaining: null,
      order_id: started.data.order_id,
    });
    await api().stop(address);
    expect((await api().status(address)).data).toMatchObject({ status: "inactive", order_id: null });
    const [call] = kit.sandbox.calls("host.status");
    expect(call).toMatchObject({ method: "POST", path: "/apiv2/time/status", body: { address } });
  });

  it("answers -4 for an address that is not registered, or is another account's; no balance minimum", async () => {
    const theirs = freshAddress();
    await kit.client({ apiKey: otherAccount().apiKey }).hostMode.add({ address: theirs });
    kit.sandbox.account.balanceSun = 0;
    expect(await rejection(api().status(freshAddress()))).toMatchObject({ code: -4, httpStatus: 200 });
    expect(await rejection(api().status(theirs))).toMatchObject({ code: -4 });
  });

  it("reads a reply leniently: unknown fields ignored, a numeric status and missing fields kept as absent", async () => {
    const address = await registered(freshAddress());
    kit.sandbox.inject("host.status", {
      kind: "reply",
      reply: {
        status: 200,
        json: { code: 0, msg: "ok", data: { status: 0, cycle_set: 0, mode: 7, extra: [1] } },
      },
    });
    const read = await api().status(address);
    expect(read.data).toEqual({ status: 0 });
  });
});

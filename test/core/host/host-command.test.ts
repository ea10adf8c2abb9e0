import { describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { hostUnknownYetLine } from "../../../src/core/host/reconcile-host-start.js";
import { findOrigin } from "../../../src/core/origins.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { DEFAULT_REAL_IP, SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { createServiceClient } from "../../../src/service/client.js";
import {
  channel,
  operator,
  replyButtons,
  replyText,
  trackedWork,
  viewer,
} from "../../support/core-harness.js";
import { freshAddress, quote, type SpendHarness, useSpendHarness } from "../../support/spend-harness.js";

const spend = useSpendHarness({ sandbox: { outbound: { callbackRetryMs: [5, 5], callbackTimeoutMs: 200 } } });
const START_SUN = 500 * SUN_PER_TRX;
const CALLBACK = "https://opsbot.test/callbacks/host/test-callback-token";

async function start(h: SpendHarness, address = freshAddress("host"), before: () => void = () => {}) {
  const { confirm } = await quote(h, `host start ${address}`);
  before();
  const reply = await h.click(operator, confirm);
  return { address, reply, text: replyText(reply) };
}

describe("host start: the quote", () => {
  it("shows the cycle prices from the price list and the balance, and offers Start / Cancel", async () => {
    const h = await spend.setup();
    h.clock.advance(Date.parse("2026-08-28T12:00:00Z") - h.clock.now());
    const address = freshAddress("host");
    const { reply } = await quote(h, `host start ${address}`);
    const body = replyText(reply);
    expect(body).toContain(`Address: ${address}`);
    expect(body).toContain("First cycle: 4 TRX");
    expect(body).toContain("Balance: 500 TRX, covers it");
    expect(body).toContain(
      "First delegation 4 TRX; then 2 TRX per cycle when the previous transfer used at most 65,000 energy, 4 TRX when more.",
    );
    expect(body).toContain("Daily minimum 8 TRX in infinity mode from 2026-08-29.");
    expect(body).not.toContain("PUBLIC_URL");
    expect(replyButtons(reply).map((b) => b.label)).toEqual(["Start Host Mode", "Cancel"]);
    expect(h.sandbox.calls("pricing.get")[0]?.query).toEqual({ services: "host" });
    expect(h.sandbox.calls("host.add")).toEqual([]);
  });

  it("says the daily minimum applies once its date has come", async () => {
    const h = await spend.setup();
    h.clock.advance(Date.parse("2026-09-01T00:00:00Z") - h.clock.now());
    const body = replyText((await quote(h, `host start ${freshAddress("host")}`)).reply);
    expect(body).toContain("Daily minimum 8 TRX in infinity mode. ");
  });

  it("offers no button when the balance does not cover one cycle", async () => {
    const h = await spend.setup();
    h.sandbox.account.balanceSun = 3 * SUN_PER_TRX;
    const reply = await h.run(operator, `host start ${freshAddress("host")}`);
    expect(replyText(reply)).toContain("Balance: 3 TRX, does NOT cover it");
    expect(replyText(reply)).toContain("The balance does not cover one cycle");
    expect(replyButtons(reply)).toEqual([]);
  });

  it("refuses a smart contract before any price is asked", async () => {
    const h = await spend.setup();
    const address = freshAddress("host");
    h.sandbox.screening.addToList("smart_contract", address);
    expect(replyText(await h.run(operator, `host start ${address}`))).toBe(
      `Refused: ${address} is a smart contract (smart_contract); energy cannot be delegated to a contract. Nothing was started.`,
    );
    expect(h.sandbox.calls().map((c) => c.endpoint)).toEqual(["compliance.lookup"]);
  });

  it("refuses above OPS_MAX_ORDER_TRX, a viewer, and bad input", async () => {
    const h = await spend.setup({ settings: { maxOrderTrx: "3" } });
    expect(replyText(await h.run(operator, `host start ${freshAddress("host")}`))).toBe(
      "This order would cost 4 TRX, above the cap of 3 TRX per order (OPS_MAX_ORDER_TRX).",
    );
    h.sandbox.clearCalls();
    expect(replyText(await h.run(viewer, `host start ${freshAddress("host")}`))).toContain(
      "needs the operator role",
    );
    expect(replyText(await h.run(operator, "host start"))).toContain("no address given");
    expect(replyText(await h.run(operator, "host stop TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6x"))).toContain(
      "checksum failed",
    );
    expect(replyText(await h.run(operator, "host pause TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"))).toContain(
      "start",
    );
    expect(h.sandbox.calls()).toEqual([]);
  });
});

describe("host start: Confirm", () => {
  it("registers the callback URL, starts infinity mode, remembers the conversation and audits", async () => {
    const h = await spend.setup();
    const { address, reply, text } = await start(h);
    expect(text).toContain("Host Mode started");
    expect(text).toContain(`Address: ${address}`);
    expect(text).toContain("Mode: infinity, active");
    expect(text).not.toContain("test-callback-token");
    expect(reply.replacesOriginal).toBe(true);
    expect(h.sandbox.calls("host.add").map((c) => c.body)).toEqual([{ address, callback_url: CALLBACK }]);
    expect(h.sandbox.calls("host.infinitystart").map((c) => c.body)).toEqual([{ address }]);
    const entry = h.sandbox.energy.hostAddress(address);
    expect(entry?.status).toBe("active");
    expect(entry?.callbackUrl).toBe(CALLBACK);
    expect(text).toContain(`Order: ${entry?.orderId}`);
    expect(await findOrigin(h.store, "host", address)).toEqual(channel);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(4 * SUN_PER_TRX);
    const [audit] = await readAudit(h.store, 1);
    expect(audit).toMatchObject({
      verb: "host start",
      address,
      result: "ok",
      orderIds: [String(entry?.orderId)],
    });
    // The first cycle is charged by the service shortly after the start.
    await h.waitFor(() => (entry?.cycles.length ?? 0) === 1, "the first cycle");
    expect(h.sandbox.account.balanceSun).toBe(START_SUN - 4 * SUN_PER_TRX);
  });

  it("without PUBLIC_URL: registers no callback and warns", async () => {
    const h = await spend.setup({ settings: { publicUrl: undefined } });
    const address = freshAddress("host");
    const q = await quote(h, `host start ${address}`);
    expect(replyText(q.reply)).toContain("Warning: PUBLIC_URL is not set, so no callback URL is registered");
    const text = replyText(await h.click(operator, q.confirm));
    expect(text).toContain("Host Mode started");
    expect(text).toContain("Warning: PUBLIC_URL is not set");
    expect(h.sandbox.calls("host.add").map((c) => c.body)).toEqual([{ address }]);
  });

  it("-5 already active", async () => {
    const h = await spend.setup();
    const { address } = await start(h);
    const again = await start(h, address);
    expect(again.text).toBe(
      `Not started: Host Mode is already active for ${address} (code -5); nothing new was started. Nothing was charged. (The address is registered for Host Mode, but infinity mode did not start.)`,
    );
    expect(h.sandbox.calls("host.infinitystart")).toHaveLength(2);
    const [audit] = await readAudit(h.store, 1);
    expect(audit).toMatchObject({ result: "failed", message: again.text });
  });

  it("-6 an open order", async () => {
    const h = await spend.setup();
    const address = freshAddress("host");
    await h.service.hostMode.add({ address });
    h.sandbox.energy.openHostOrder(address);
    const { text } = await start(h, address);
    expect(text).toContain(
      `Not started: ${address} already has an open Host Mode order (code -6); stop it with host stop, then start again. Nothing was charged.`,
    );
    expect(h.sandbox.energy.hostAddress(address)?.status).toBe("inactive");
  });

  it("-2 insufficient balance names required and available", async () => {
    const h = await spend.setup();
    h.sandbox.energy.setHostStartRequirement(600 * SUN_PER_TRX);
    const { text } = await start(h);
    expect(text).toContain(
      "Not started: not enough balance to start Host Mode: 600.0000 TRX required, 500.0000 TRX available (code -2). Nothing was charged.",
    );
    expect(h.sandbox.account.balanceSun).toBe(START_SUN);
  });

  it("-4 on infinitystart: add it first", async () => {
    const h = await spend.setup();
    const { address, text } = await start(h, undefined, () =>
      h.sandbox.inject("host.infinitystart", {
        kind: "reply",
        reply: { status: 200, json: { code: -4, msg: "Address not found. Add it first", data: null } },
      }),
    );
    expect(text).toContain(
      `Not started: ${address} is not registered for Host Mode yet; it must be added first (code -4).`,
    );
  });

  it.each([
    ["Address belongs to another user", "is registered for Host Mode by another account (code -1)"],
    [
      "Database error while activating infinity mode",
      "the service had a temporary error (code -1: Database error while activating infinity mode); try again",
    ],
    [
      "Invalid API key or IP not in whitelist",
      "the service did not accept the bot's API key or IP (code -1); an admin should check SERVICE_API_KEY and SERVICE_REAL_IP",
    ],
    ["Internal server error", "the service had an internal error (code -1); try again later"],
  ])("-1 %s", async (msg, expected) => {
    const h = await spend.setup();
    const { text } = await start(h, undefined, () =>
      h.sandbox.inject("host.infinitystart", {
        kind: "reply",
        reply: { status: 200, json: { code: -1, msg, data: null } },
      }),
    );
    expect(text).toContain(expected);
    expect(text).toContain("Nothing was charged.");
  });

  it("-1 the address belongs to another account (a real second account)", async () => {
    const h = await spend.setup();
    const address = freshAddress("host");
    h.sandbox.accounts.add({ apiKey: "other-account-key" });
    const other = createServiceClient({
      baseUrl: h.sandbox.url,
      apiKey: "other-account-key",
      realIp: DEFAULT_REAL_IP,
      maxAttempts: 1,
    });
    await other.hostMode.add({ address });
    const { text } = await start(h, address);
    expect(text).toBe(
      `Not started: ${address} is registered for Host Mode by another account (code -1). Nothing was charged.`,
    );
    expect(h.sandbox.calls("host.infinitystart")).toEqual([]);
  });

  it("-1 the service refuses the callback URL", async () => {
    const h = await spend.setup({ settings: { publicUrl: "https://bot.internal" } });
    const { text } = await start(h);
    expect(text).toBe(
      "Not started: the service refused the callback URL (code -1); PUBLIC_URL must be a public http(s) address. Nothing was charged.",
    );
  });

  it("402 1004 balance below the minimum, 403 1005 blocked key", async () => {
    const h = await spend.setup();
    const low = await start(h, undefined, () => {
      h.sandbox.account.balanceSun = 3 * SUN_PER_TRX;
    });
    expect(low.text).toBe(
      "Not started: the account balance is below the service's 4 TRX minimum (code 1004); top up first. Nothing was charged.",
    );
    h.sandbox.account.balanceSun = START_SUN;
    const blocked = await start(h, undefined, () => {
      h.sandbox.account.blocked = true;
    });
    expect(blocked.text).toBe(
      "Not started: the service has blocked the bot's API key (code 1005); an admin should check SERVICE_API_KEY and SERVICE_REAL_IP. Nothing was charged.",
    );
    expect(h.sandbox.calls("host.infinitystart")).toEqual([]);
  });

  it("a lost answer from infinitystart is not resent blindly: not known yet, handed to the reconciler", async () => {
    const h = await spend.setup();
    const { address, text } = await start(h, undefined, () =>
      h.sandbox.inject("host.infinitystart", { kind: "reset" }),
    );
    expect(text).toBe(hostUnknownYetLine(address));
    expect(trackedWork(h).map((s) => s.job.kind)).toContain("reconcile-host-start");
  });
});

describe("host stop", () => {
  it("stops an active address and audits it; stopping again says it is already inactive (-7)", async () => {
    const h = await spend.setup();
    const { address } = await start(h);
    const stopped = await h.run(operator, `host stop ${address}`);
    expect(replyText(stopped)).toContain(
      `Host Mode stopped for ${address}: 1 open order closed, now inactive.`,
    );
    expect(stopped.visibility).toBe("public");
    expect(h.sandbox.energy.hostAddress(address)?.status).toBe("inactive");
    expect(replyButtons(stopped)).toEqual([]);

    const again = await h.run(operator, `host stop ${address}`);
    expect(replyText(again)).toBe(
      `Not stopped: Host Mode is already inactive for ${address} (code -7); there is nothing to stop.`,
    );
    const audit = await readAudit(h.store, 2);
    expect(audit.map((e) => [e.verb, e.result])).toEqual([
      ["host stop", "failed"],
      ["host stop", "ok"],
    ]);
  });

  it("-4 an address that was never added", async () => {
    const h = await spend.setup();
    const address = freshAddress("host");
    expect(replyText(await h.run(operator, `host stop ${address}`))).toBe(
      `Not stopped: ${address} is not registered for Host Mode, so there is nothing to stop (code -4).`,
    );
    expect(h.sandbox.calls().map((c) => c.endpoint)).toEqual(["host.stop"]);
  });

  it("works whatever the balance (stop spends nothing)", async () => {
    const h = await spend.setup();
    const { address } = await start(h);
    h.sandbox.account.balanceSun = 0;
    expect(replyText(await h.run(operator, `host stop ${address}`))).toContain("Host Mode stopped");
  });
});

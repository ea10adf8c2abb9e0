import { describe, expect, it } from "vitest";
import { START_LEEWAY_MS } from "../../../src/core/host/host-ledger.js";
import { hostCycle } from "../../../src/core/host/host-notifications.js";
import type { HostCycle } from "../../../src/service/webhook-events.js";
import { channel, operator, replyButtons, replyText, viewer } from "../../support/core-harness.js";
import {
  freshAddress,
  quote,
  type SpendHarness,
  tokenOf,
  useSpendHarness,
} from "../../support/spend-harness.js";

/**
 * `host status` over the real core, client and sandbox: Time Status (only the fields the reply
 * holds) beside the bot's own record, and the start message's check.
 */
const spend = useSpendHarness();

async function started(h: SpendHarness, address = freshAddress("status")) {
  const { confirm } = await quote(h, `host start ${address}`);
  const reply = await h.click(operator, confirm);
  return { address, reply };
}

/** A cycle callback as the router hands it over (the bot's receipt hook). */
function cycle(h: SpendHarness, address: string, orderId: string, charged?: string) {
  const n: HostCycle = {
    event: "host.cycle",
    address,
    order_id: orderId,
    hash: `hash-${orderId}`,
    ...(charged !== undefined && { charged }),
  };
  return hostCycle.onReceipt?.(h.deps, n);
}

describe("host status", () => {
  it("an infinity address: active, infinity, unlimited cycles, the order; who started it, cycles and TRX since", async () => {
    const h = await spend.setup();
    const { address, reply } = await started(h);
    const orderId = h.sandbox.energy.hostAddress(address)?.orderId;
    expect(replyText(reply)).toContain(
      `Confirmed by Time Status: active, infinity, cycles remaining unlimited, order ${orderId}.`,
    );
    await cycle(h, address, "T1", "4.0000");
    await cycle(h, address, "T2", "2.0000");
    // The same delegation delivered again counts once.
    await cycle(h, address, "T2", "2.0000");
    await cycle(h, address, "T3");

    const status = await h.run(viewer, `host status ${address}`);
    const text = replyText(status);
    expect(text).toContain(`Address: ${address}`);
    expect(text).toContain("Status: active");
    expect(text).toContain("Mode: infinity");
    expect(text).toContain("Cycles ordered: unlimited");
    expect(text).toContain("Cycles remaining: unlimited");
    expect(text).toContain(`Order: ${orderId}`);
    expect(text).toMatch(/Started by: slack:U0OPER, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(text).toContain("Cycles seen: 3 cycles in callbacks since the start");
    expect(text).toContain("Charged since start: 6 TRX (1 callback without an amount)");
    expect(text).toMatch(/Last cycle: .* UTC, delegation T3/);
    expect(replyButtons(status).map((b) => b.label)).toEqual(["Status"]);
    expect(status.visibility).toBe("public");
  });

  it("a new start forgets the cycles of the run before; a stop through the bot is shown", async () => {
    const h = await spend.setup();
    const { address } = await started(h);
    await cycle(h, address, "T1", "4");
    await h.run(operator, `host stop ${address}`);
    h.clock.advance(START_LEEWAY_MS + 60_000);
    const again = await h.run(viewer, `host status ${address}`);
    expect(replyText(again)).toContain("Status: inactive");
    expect(replyText(again)).toMatch(/Stopped through the bot at /);
    expect(replyText(again)).toContain("Cycles seen: 1 cycle");

    const { confirm } = await quote(h, `host start ${address}`);
    await h.click(operator, confirm);
    await cycle(h, address, "T9", "2");
    const text = replyText(await h.run(viewer, `host status ${address}`));
    expect(text).toContain("Cycles seen: 1 cycle in callbacks");
    expect(text).toContain("Charged since start: 2 TRX");
    expect(text).not.toContain("Stopped through the bot");
  });

  it("an address the bot never started is shown from the service alone", async () => {
    const h = await spend.setup();
    const address = freshAddress("status-outside");
    await h.service.hostMode.add({ address });
    await h.service.hostMode.infinityStart(address);
    const text = replyText(await h.run(viewer, `host status ${address}`));
    expect(text).toContain("Status: active");
    expect(text).toContain("The bot has no record of starting Host Mode for this address");
    expect(text).not.toContain("Started by");
  });

  it("an unregistered address: one line, private", async () => {
    const h = await spend.setup();
    const address = freshAddress("status-unknown");
    const reply = await h.run(viewer, `host status ${address}`);
    expect(reply.visibility).toBe("private");
    expect(replyText(reply)).toBe(
      `${address} is not registered for Host Mode with this account, so the service has no status for it (code -4). Start it with: host start ${address}`,
    );
  });

  it("reads the reply leniently: a numeric status, missing fields left out, unknown fields ignored", async () => {
    const h = await spend.setup();
    const address = freshAddress("status-lenient");
    h.sandbox.inject("host.status", {
      kind: "reply",
      reply: { status: 200, json: { code: 0, msg: "ok", data: { status: 0, cycle_set: 0, secret: "x" } } },
    });
    const text = replyText(await h.run(viewer, `host status ${address}`));
    expect(text).toContain("Status: inactive");
    expect(text).not.toMatch(/Mode:|Cycles|Order|secret/);
  });

  it("a failed read: one line without the bot's record, the line beside it with one", async () => {
    const h = await spend.setup();
    const never = freshAddress("status-fail");
    h.sandbox.inject("host.status", {
      kind: "reply",
      reply: { status: 200, json: { code: -1, msg: "Internal server error", data: null } },
    });
    expect(replyText(await h.run(viewer, `host status ${never}`))).toBe(
      "No status: the service had an internal error (code -1); try again later.",
    );
    const { address } = await started(h);
    h.sandbox.inject("host.status", {
      kind: "reply",
      reply: { status: 200, json: { code: -1, msg: "Internal server error", data: null } },
    });
    const text = replyText(await h.run(viewer, `host status ${address}`));
    expect(text).toContain("Time Status: No status: the service had an internal error (code -1)");
    expect(text).toContain("Started by: slack:U0OPER");
  });

  it("the start message warns when Time Status does not show infinity running", async () => {
    const h = await spend.setup();
    const address = freshAddress("status-check");
    const { confirm } = await quote(h, `host start ${address}`);
    h.sandbox.inject("host.status", {
      kind: "reply",
      reply: { status: 200, json: { code: 0, msg: "ok", data: { status: "inactive", mode: null } } },
    });
    const text = replyText(await h.click(operator, confirm));
    expect(text).toContain("Host Mode started");
    expect(text).toContain(
      `Warning: Time Status does not show infinity mode running yet (inactive). Press Status in a moment, or run host status ${address}.`,
    );
  });

  it("a start whose check cannot be read still says it started, and asks once (no resend)", async () => {
    const h = await spend.setup({ client: { maxAttempts: 3 } });
    const address = freshAddress("status-check-fail");
    const { confirm } = await quote(h, `host start ${address}`);
    h.sandbox.inject("host.status", { kind: "reply", reply: { status: 503, json: { detail: "busy" } } });
    const reply = await h.click(operator, confirm);
    expect(replyText(reply)).toContain("Host Mode started");
    expect(replyText(reply)).toMatch(
      /Time Status could not confirm the start just now \(.*\)\. Press Status, or run host status T/,
    );
    expect(replyButtons(reply).map((b) => b.label)).toEqual(["Status"]);
    expect(h.sandbox.calls("host.status")).toHaveLength(1);
  });

  it("the Status button: a viewer may press it; it replaces the message with a fresh status and button", async () => {
    const h = await spend.setup();
    const { address, reply } = await started(h);
    const pressed = await h.click(viewer, tokenOf(reply, "Status"));
    expect(replyText(pressed)).toContain("Host Mode status");
    expect(replyText(pressed)).toContain(`Address: ${address}`);
    expect(pressed.replacesOriginal).toBe(true);
    const again = await h.click(viewer, tokenOf(pressed, "Status"));
    expect(replyText(again)).toContain("Status: active");
    expect(replyText(await h.click(viewer, tokenOf(reply, "Status")))).toBe("Already handled.");
    expect(replyText(await h.click(viewer, tokenOf(again, "Status"), { ...channel, id: "C0OTHER" }))).toBe(
      "This button belongs to another conversation; nothing was done.",
    );
  });
});

import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { eventually } from "../support/app-world.js";
import type { ChildBot } from "../support/child-bot.js";
import { exited } from "../support/processes.js";
import { quietPeriod } from "../webhooks/bot.js";
import { CHANNEL, createFaultWorld, type FaultWorld } from "./fault-world.js";

/**
 * SIGKILL at each step of a Confirm, on real processes: the bot is a child process on a private
 * Redis, the sandbox and the fake Slack API live in the test. After the kill a second bot starts
 * on the same Redis. Whatever the step, the service placed one order, the channel shows one
 * outcome, and the operator's day counts the charge once.
 */
const OUTCOME = /Energy delegated|Energy order \(already placed\)/;

async function killedConfirm(
  world: FaultWorld,
  tag: string,
  kill: { env?: Record<string, string>; fromOutside?: (bot: ChildBot) => Promise<void> },
) {
  const address = tronAddress(`fault-${tag}`);
  const first = await world.start(kill.env ?? {});
  const quote = await world.quote(first, address);
  const balanceBefore = world.sandbox.account.balanceSun;
  const died = exited(first.child);
  // The click may be cut off with the process: what matters is what happens afterwards.
  const click = world.click(first, quote, /^Confirm/).catch(() => undefined);
  if (kill.fromOutside) await kill.fromOutside(first);
  const exit = await died;
  expect(exit.signal).toBe("SIGKILL");
  await click;
  const second = await world.start();
  await eventually(() => world.shown(OUTCOME).length > 0, "the outcome in the channel", 30_000);
  await quietPeriod(3_000);
  return { address, quote, second, charged: balanceBefore - world.sandbox.account.balanceSun };
}

async function expectOnce(
  world: FaultWorld,
  { address, charged, quote }: { address: string; charged: number; quote: FakeSlackMessage },
) {
  const orders = world.sandbox.energy.orders().filter((o) => o.receiveAddress === address);
  expect(orders).toHaveLength(1);
  const outcomes = world.shown(OUTCOME);
  expect(outcomes.map(messageText)).toHaveLength(1);
  expect(messageText(outcomes[0])).toContain(orders[0]!.orderId);
  // The outcome took the quote's place: its buttons are gone, and no other message was posted.
  expect(outcomes[0]?.ts).toBe(quote.ts);
  expect(buttonLabels(outcomes[0])).toEqual([]);
  expect(world.slack.channelMessages(CHANNEL)).toHaveLength(1);
  expect(charged).toBeGreaterThanOrEqual(orders[0]!.costSun);
  expect(await world.spentSun()).toBe(charged);
  const keys = new Set(world.sandbox.calls("order5m.create").map((c) => c.headers["x-idempotency-key"]));
  expect(keys.size).toBe(1);
  // A kill between placing and recording writes the ledger entry once, after the restart.
  const entries = (await world.ledger()).filter((e) => e.address === address);
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatchObject({
    kind: "energy",
    result: "ordered",
    amountSun: charged,
    orderIds: [orders[0]!.orderId],
  });
  expect(entries[0]!.confirmationId).not.toBe("");
}

describe("SIGKILL during a Confirm: one order, one outcome message, the spend counted once", () => {
  it("after the claim (the click acknowledged, nothing sent yet)", async () => {
    const world = await createFaultWorld({ sandbox: { energy: { order5mLatencyMs: 20 } } });
    const run = await killedConfirm(world, "after-claim", {
      env: { OPSBOT_TEST_KILL_AT: "after-claim" },
    });
    expect(world.sandbox.calls("order5m.create").length).toBeGreaterThanOrEqual(1);
    await expectOnce(world, run);
  }, 300_000);

  it("after the request is sent (the service still working on it)", async () => {
    const world = await createFaultWorld({ sandbox: { energy: { order5mLatencyMs: 1_500 } } });
    const run = await killedConfirm(world, "after-send", {
      async fromOutside(bot) {
        await eventually(() => world.sandbox.calls("order5m.create").length === 1, "the order sent", 15_000);
        bot.child.kill("SIGKILL");
      },
    });
    await expectOnce(world, run);
  }, 300_000);

  it("after the service answered (before anything was recorded)", async () => {
    const world = await createFaultWorld({ sandbox: { energy: { order5mLatencyMs: 20 } } });
    const run = await killedConfirm(world, "after-answer", {
      env: { OPSBOT_TEST_KILL_AT: "after-answer" },
    });
    // The recovery asked again with the same key: the service answered with the first order.
    expect(world.sandbox.calls("order5m.create").map((c) => c.status)).toEqual([200, 208]);
    await expectOnce(world, run);
  }, 300_000);

  it("before the reply is posted (the outcome known, the channel not told)", async () => {
    const world = await createFaultWorld({ sandbox: { energy: { order5mLatencyMs: 20 } } });
    const run = await killedConfirm(world, "before-reply", {
      env: { OPSBOT_TEST_KILL_AT: "before-reply" },
    });
    // Nothing was asked again: the stored outcome was posted by the next bot.
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
    await expectOnce(world, run);
  }, 300_000);

  it("after the outcome is posted, before it is marked posted (the next bot posts it again: as an edit)", async () => {
    const world = await createFaultWorld({ sandbox: { energy: { order5mLatencyMs: 20 } } });
    const address = tronAddress("fault-after-reply");
    const first = await world.start({ OPSBOT_TEST_KILL_AT: "after-reply" });
    const quote = await world.quote(first, address);
    const balanceBefore = world.sandbox.account.balanceSun;
    const died = exited(first.child);
    await world.click(first, quote, /^Confirm/).catch(() => undefined);
    expect((await died).signal).toBe("SIGKILL");
    // The dead bot had replaced the quote with the outcome (response_url) before it died.
    expect(world.shown(OUTCOME).map((m) => m.ts)).toEqual([quote.ts]);
    const updatesBefore = world.slack.calls("chat.update").length;
    await world.start();
    // The next bot's recovery job finds the outcome not marked posted and posts it: in place.
    await eventually(
      () => world.slack.calls("chat.update").length > updatesBefore,
      "the recovery's post (an edit of the quote)",
      30_000,
    );
    await quietPeriod(3_000);
    expect(world.slack.calls("chat.update").at(-1)?.params).toMatchObject({ channel: CHANNEL, ts: quote.ts });
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
    await expectOnce(world, { address, quote, charged: balanceBefore - world.sandbox.account.balanceSun });
  }, 300_000);
});

import { describe, expect, it } from "vitest";
import { expectNotifications } from "../../src/core/notices/expectations.js";
import { rememberOrigin } from "../../src/core/origins.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { type Bot, createWorld, eventually, type World } from "../support/app-world.js";
import { quietPeriod } from "../webhooks/bot.js";
import { delegationEvent } from "../webhooks/signed.js";

/**
 * Where a delivery goes and how fast, on the whole bot (`startApp`) with the real webhook route,
 * the job queues and the fake Slack Web API: a delivery nobody here expected goes to the alert
 * channel without waiting; one a Confirm expected waits for its origin; a burst into one channel
 * becomes one digest; a 429 stops the channel for its Retry-After.
 */
const ALERTS = "C0ALERTS";
const OPS = "C0OPS";

async function world(): Promise<{ world: World; bot: Bot }> {
  const w = await createWorld({ env: { ALERT_SLACK_CHANNEL: ALERTS } });
  return { world: w, bot: await w.start() };
}

const names = (text: string, orderId: string): boolean => new RegExp(`\\b${orderId}\\b`).test(text);

const posted = (w: World, channel: string): FakeSlackMessage[] =>
  w.slack.channelMessages(channel).filter((m) => m.via === "chat.postMessage");

/** The "notification routed" log lines of the bot. */
function routed(bot: Bot): { key: string; to: string; via: string; deferrals: number }[] {
  return bot.logs
    .map(
      (line) => JSON.parse(line) as { msg?: string; key: string; to: string; via: string; deferrals: number },
    )
    .filter((r) => r.msg === "notification routed");
}

describe("routing a delivery", () => {
  it("sends an order nobody here placed straight to the alert channel, without waiting for an origin", async () => {
    const { world: w, bot } = await world();
    const address = tronAddress("placed-on-the-website");
    const answer = await bot.webhook("orders", delegationEvent(81_001, "5MWEBSITE", address));
    expect(answer.status).toBe(200);

    const alert = await eventually(
      () => posted(w, ALERTS).find((m) => messageText(m).includes("5MWEBSITE")),
      "the alert",
    );
    expect(messageText(alert)).toContain("alert channel");
    // Routed on its first run: no deferral (the old origin grace deferred it six times, ~2 min).
    expect(routed(bot)).toEqual([
      expect.objectContaining({ key: "orders:81001", to: "alerts", deferrals: 0 }),
    ]);
    expect(posted(w, OPS)).toEqual([]);
  });

  it("holds a delivery a Confirm expected until its origin is recorded, then posts it there, not to the alerts", async () => {
    const { world: w, bot } = await world();
    const address = tronAddress("expected-by-a-confirm");
    const room = { platform: "slack" as const, id: OPS };
    // What the energy Confirm records before it sends the order.
    await expectNotifications(bot.app.deps, room, { kind: "order5m", address });
    // The webhook overtakes the order's answer: the origin is not recorded yet.
    expect((await bot.webhook("orders", delegationEvent(81_002, "5MOVERTAKEN", address))).status).toBe(200);
    await quietPeriod(600);
    expect(posted(w, ALERTS)).toEqual([]);
    expect(posted(w, OPS)).toEqual([]);

    await rememberOrigin(bot.app.deps.store, "order", "5MOVERTAKEN", room);
    const message = await eventually(
      () => posted(w, OPS).find((m) => messageText(m).includes("5MOVERTAKEN")),
      "the delivery in the ordering channel",
    );
    expect(messageText(message)).toContain(address);
    const [entry] = routed(bot);
    expect(entry).toMatchObject({ key: "orders:81002", to: `slack:${OPS}`, via: "origin" });
    expect(entry!.deferrals).toBeGreaterThan(0);
    await quietPeriod(300);
    expect(posted(w, ALERTS)).toEqual([]);
    expect(posted(w, OPS)).toHaveLength(1);
  });

  it("posts a backed-up channel's deliveries as one digest that lists every order and hash once", async () => {
    const { world: w, bot } = await world();
    const room = { platform: "slack" as const, id: OPS };
    const events = Array.from({ length: 12 }, (_, i) =>
      delegationEvent(82_000 + i, `5MBURST${i}`, tronAddress(`burst-${i}`)),
    );
    for (const e of events) await rememberOrigin(bot.app.deps.store, "order", e.order_id, room);
    const answers = await Promise.all(events.map((e) => bot.webhook("orders", e)));
    expect(answers.every((a) => a.status === 200)).toBe(true);

    await eventually(
      () => events.every((e) => posted(w, OPS).some((m) => names(messageText(m), e.order_id))),
      "every delivery",
    );
    await quietPeriod(1_500);
    const texts = posted(w, OPS).map(messageText);
    // Slack takes ~1 message per second per channel: the first may go alone, what waited goes together.
    expect(texts.length).toBeLessThanOrEqual(3);
    expect(texts.some((t) => /\d+ deliveries confirmed/.test(t))).toBe(true);
    for (const e of events) {
      expect(texts.filter((t) => names(t, e.order_id))).toHaveLength(1);
      expect(texts.filter((t) => t.includes(e.tx_hash))).toHaveLength(1);
    }
    expect(posted(w, ALERTS)).toEqual([]);
  });

  it("stops posting into a channel for the Retry-After of a 429, then posts what waited", async () => {
    const { world: w, bot } = await world();
    const room = { platform: "slack" as const, id: OPS };
    w.slack.fail("chat.postMessage", { kind: "429", retryAfter: 2 });
    const events = Array.from({ length: 3 }, (_, i) =>
      delegationEvent(83_000 + i, `5MLIMIT${i}`, tronAddress(`limit-${i}`)),
    );
    for (const e of events) await rememberOrigin(bot.app.deps.store, "order", e.order_id, room);
    expect((await bot.webhook("orders", events[0])).status).toBe(200);
    await eventually(() => w.slack.calls("chat.postMessage").length === 1, "the limited post");
    const limitedAt = w.slack.calls("chat.postMessage")[0]!.at;
    for (const e of events.slice(1)) expect((await bot.webhook("orders", e)).status).toBe(200);

    await eventually(
      () => events.every((e) => posted(w, OPS).some((m) => names(messageText(m), e.order_id))),
      "every delivery after the pause",
    );
    const attempts = w.slack.calls("chat.postMessage");
    // Nothing else was tried while Slack said wait.
    expect(attempts.filter((c) => c.at < limitedAt + 1_900)).toHaveLength(1);
    expect(attempts.length).toBeLessThanOrEqual(3);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { messagesOf, readAlert } from "../../src/core/alerts/alert.js";
import { listAlerts } from "../../src/core/alerts/commands.js";
import { onBlocked } from "../../src/core/features.js";
import { checkRunway } from "../../src/core/runway/check.js";
import { createTrackedHandlers } from "../../src/core/tracking-registry.js";
import { recheckDenyList } from "../../src/core/watch/recheck.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import { FORM, findButton, homeOpenedBody, type Signed, signedHeaders } from "../adapters/slack/payloads.js";
import { buttonData, callbackUpdate } from "../adapters/telegram/updates.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import type { FakeMessage } from "../fakes/telegram-api.js";
import {
  type Bot,
  createWorld,
  eventually,
  OPERATOR,
  TELEGRAM_SECRET,
  TG_CHAT,
  TG_OPERATOR,
  type World,
} from "../support/app-world.js";
import { testRedis } from "../support/redis.js";
import { quietPeriod } from "../webhooks/bot.js";
import { delegationEvent } from "../webhooks/signed.js";

/**
 * Alerts someone owns, end to end: the whole bot (`startApp`) on Redis, the sandbox's balance below
 * OPS_LOW_BALANCE_TRX (the runway check raises an alert at start), the real Bolt and grammY against
 * the fake Slack and Telegram APIs. Escalation and the end of a snooze are delayed jobs: the tests
 * run their handlers directly (as the job would, on any instance), never waiting real minutes.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const ALERTS = "C0ALERTS";
const VIEWER = { id: "U0VIEW", name: "vic" };
const TG_VIEWER = { id: 7999, is_bot: false, first_name: "Vic", username: "vic_views" };
const LOW = "Balance running low";

async function lowBalanceWorld(env: Record<string, string> = {}, telegram = false): Promise<World> {
  const world = await createWorld({
    telegram,
    redis: { url: redis.url, prefix: redis.prefix },
    env: {
      OPS_LOW_BALANCE_TRX: "100",
      ALERT_SLACK_CHANNEL: ALERTS,
      OPS_ESCALATE_MIN: "30",
      OPS_ONCALL: "slack:U0ONCALL,slack:S0TEAM,telegram:@oncall_ops",
      ...env,
    },
  });
  world.sandbox.account.balanceSun = 25_000_000;
  return world;
}

const slackAlerts = (world: World, channel = ALERTS): FakeSlackMessage[] =>
  world.slack.channelMessages(channel).filter((m) => messageText(m).includes(LOW));
const escalations = (world: World, channel = ALERTS): FakeSlackMessage[] =>
  world.slack.channelMessages(channel).filter((m) => /has been open for/.test(messageText(m)));

/** The escalation job's handler, as a worker of `bot` runs it. */
const escalateOn = (bot: Bot, alertId: string) =>
  createTrackedHandlers(bot.app.deps)["alert-escalate"]({ kind: "alert-escalate", alertId });

async function theAlertId(bot: Bot): Promise<string> {
  const [alert] = await listAlerts(bot.app.deps, false);
  if (!alert) throw new Error("no alert was raised");
  return alert.id;
}

describe("alerts on Slack", () => {
  it("carries Ack / Snooze 1h / Resolve; a viewer is refused; Ack edits it in place; no escalation after Ack", async () => {
    const world = await lowBalanceWorld();
    const bot = await world.start();
    const alert = structuredClone(await eventually(() => slackAlerts(world)[0], "the runway alert"));
    expect(buttonLabels(alert)).toEqual(["Ack", "Snooze 1h", "Resolve"]);
    expect(messageText(alert)).toMatch(/open since .* not acknowledged yet/);

    await bot.click(alert, "Ack", { user: VIEWER });
    await eventually(() => world.slack.ephemerals(VIEWER.id)[0], "the viewer's refusal");
    expect(messageText(world.slack.ephemerals(VIEWER.id)[0])).toMatch(
      /needs the operator role; you are a viewer/,
    );
    expect(messageText(slackAlerts(world)[0])).toMatch(/not acknowledged yet/);

    await bot.click(alert, "Ack");
    const acked = await eventually(
      () =>
        world.slack
          .channelMessages(ALERTS)
          .find((m) => m.ts === alert.ts && /acknowledged by olga at/.test(messageText(m))),
      "the alert acknowledged in place",
    );
    expect(messageText(acked)).toContain("The balance is 25 TRX, below 100 TRX");
    expect(buttonLabels(acked)).toEqual(["Snooze 1h", "Resolve"]);
    expect(slackAlerts(world)).toHaveLength(1);

    expect(await escalateOn(bot, await theAlertId(bot))).toEqual({ done: true });
    await quietPeriod(1_000);
    expect(escalations(world)).toEqual([]);
  }, 30_000);

  it("escalates once with two instances and across a restart, mentioning OPS_ONCALL and linking the alert", async () => {
    const world = await lowBalanceWorld();
    const [a, b] = [await world.start(), await world.start()];
    const alert = structuredClone(await eventually(() => slackAlerts(world)[0], "the runway alert"));
    const id = await theAlertId(a);
    // The link is made from the message id the notify worker records once Slack has answered.
    await eventually(async () => (await messagesOf(a.app.deps.store, id)).size > 0, "the alert's message id");
    await Promise.all([escalateOn(a, id), escalateOn(b, id), escalateOn(a, id)]);
    const escalation = structuredClone(await eventually(() => escalations(world)[0], "the escalation"));
    const text = messageText(escalation);
    expect(text).toContain("<@U0ONCALL>");
    expect(text).toContain("<!subteam^S0TEAM>");
    expect(text).not.toContain("oncall_ops");
    expect(text).toContain(`https://slack.com/archives/${ALERTS}/p${alert.ts.replace(".", "")}`);
    expect(text).toContain(LOW);
    expect(buttonLabels(escalation)).toEqual(["Ack", "Snooze 1h", "Resolve"]);

    await a.stop();
    const c = await world.start();
    await escalateOn(c, id);
    await quietPeriod(1_000);
    expect(escalations(world)).toHaveLength(1);
    expect(slackAlerts(world).filter((m) => !/has been open for/.test(messageText(m)))).toHaveLength(1);

    // Ack on the escalation: it is edited, and so is the alert's own message.
    await c.click(escalation, "Ack");
    await eventually(
      () =>
        /acknowledged by olga/.test(
          messageText(world.slack.channelMessages(ALERTS).find((m) => m.ts === alert.ts)),
        ),
      "the alert's message edited after the Ack on the escalation",
    );
    expect(world.slack.calls("chat.update").length).toBeGreaterThanOrEqual(1);
  }, 40_000);

  it("Snooze hides it and brings it back after the hour; Resolve ends it; a cleared cause says so in place", async () => {
    const world = await lowBalanceWorld();
    const bot = await world.start();
    const alert = structuredClone(await eventually(() => slackAlerts(world)[0], "the runway alert"));
    const id = await theAlertId(bot);
    await bot.click(alert, "Snooze 1h");
    const snoozed = await eventually(
      () =>
        world.slack
          .channelMessages(ALERTS)
          .find((m) => m.ts === alert.ts && /snoozed by olga until/.test(messageText(m))),
      "the snoozed alert",
    );
    expect(buttonLabels(snoozed)).toEqual(["Resolve"]);
    expect(messageText(snoozed)).not.toContain("Spend rate");

    // The snooze's delayed job, run as its worker would after the hour.
    const record = await readAlert(bot.app.deps.store, id);
    const until = record?.snoozedUntil ?? 0;
    expect(until - Date.now()).toBeGreaterThan(59 * 60_000);
    await createTrackedHandlers(bot.app.deps)["alert-unsnooze"]({
      kind: "alert-unsnooze",
      alertId: id,
      until,
    });
    const back = structuredClone(
      await eventually(
        () => slackAlerts(world).find((m) => m.ts !== alert.ts),
        "the alert back after its snooze",
      ),
    );
    expect(messageText(back)).toContain("The balance is 25 TRX, below 100 TRX");
    expect(buttonLabels(back)).toEqual(["Ack", "Snooze 1h", "Resolve"]);
    // A second run of the same job changes nothing.
    await createTrackedHandlers(bot.app.deps)["alert-unsnooze"]({
      kind: "alert-unsnooze",
      alertId: id,
      until,
    });

    // The balance comes back: the alert says so where it is, without anyone pressing Resolve.
    world.sandbox.account.balanceSun = 500_000_000;
    await bot.command("/balance");
    await checkRunway(bot.app.deps, {
      settings: { lowBalanceTrx: "100" },
      alerts: [{ platform: "slack", id: ALERTS }],
    });
    const cleared = await eventually(
      () =>
        world.slack
          .channelMessages(ALERTS)
          .find((m) => m.ts === back.ts && /the cause cleared/.test(messageText(m))),
      "the alert cleared in place",
    );
    expect(buttonLabels(cleared)).toEqual([]);
    await quietPeriod(500);
    expect(slackAlerts(world).filter((m) => m.ts !== alert.ts && m.ts !== back.ts)).toEqual([]);

    await bot.command("/alerts");
    await eventually(
      () => world.slack.channelMessages("C0OPS").find((m) => /No open alerts/.test(messageText(m))),
      "alerts",
    );
    await bot.command("/alerts all", { user: VIEWER });
    const all = await eventually(
      () => world.slack.channelMessages("C0OPS").find((m) => /resolved in the last day/.test(messageText(m))),
      "alerts all",
    );
    expect(messageText(all)).toContain(id);
  }, 40_000);

  it("subscribe alerts copies new alerts into a conversation, with buttons; unsubscribe stops it", async () => {
    const world = await lowBalanceWorld({ OPS_LOW_BALANCE_TRX: "10" });
    world.sandbox.account.balanceSun = 500_000_000;
    const bot = await world.start();
    await bot.command("/subscribe alerts", { channel: "C0COPY", user: VIEWER });
    await eventually(() => world.slack.ephemerals(VIEWER.id)[0], "the viewer's refusal");
    expect(messageText(world.slack.ephemerals(VIEWER.id)[0])).toMatch(/subscribe needs the operator role/);
    await bot.command("/subscribe alerts", { channel: "C0COPY" });
    await eventually(
      () =>
        world.slack
          .channelMessages("C0COPY")
          .find((m) => /Subscribed: copies of alerts/.test(messageText(m))),
      "subscribed",
    );
    await bot.command("/subscriptions", { channel: "C0COPY", user: VIEWER });
    await eventually(
      () =>
        world.slack.channelMessages("C0COPY").find((m) => /Subscribed here: alerts\./.test(messageText(m))),
      "subscriptions",
    );

    const settings = { lowBalanceTrx: "100" };
    const alertsTo = [{ platform: "slack" as const, id: ALERTS }];
    world.sandbox.account.balanceSun = 25_000_000;
    await bot.command("/balance");
    await eventually(
      async () => (await checkRunway(bot.app.deps, { settings, alerts: alertsTo })) === "alerted",
      "low",
    );
    const copy = structuredClone(await eventually(() => slackAlerts(world, "C0COPY")[0], "the copy"));
    expect(buttonLabels(copy)).toEqual(["Ack", "Snooze 1h", "Resolve"]);
    await eventually(() => slackAlerts(world)[0], "the original");
    await bot.click(copy, "Ack");
    await eventually(
      () => /acknowledged by olga/.test(messageText(slackAlerts(world)[0])),
      "the original edited after the Ack on the copy",
    );

    await bot.command("/unsubscribe alerts", { channel: "C0COPY" });
    await eventually(
      () => world.slack.channelMessages("C0COPY").find((m) => /Unsubscribed/.test(messageText(m))),
      "unsubscribed",
    );
    world.sandbox.account.balanceSun = 500_000_000;
    await bot.command("/balance");
    await eventually(
      async () => (await checkRunway(bot.app.deps, { settings, alerts: alertsTo })) === "recovered",
      "ok",
    );
    world.sandbox.account.balanceSun = 25_000_000;
    await bot.command("/balance");
    await eventually(
      async () => (await checkRunway(bot.app.deps, { settings, alerts: alertsTo })) === "alerted",
      "low again",
    );
    await eventually(() => slackAlerts(world).length >= 2 && true, "the second alert in the alert channel");
    await quietPeriod(1_000);
    expect(slackAlerts(world, "C0COPY")).toHaveLength(1);
  }, 40_000);
});

describe("subscribe deliveries", () => {
  it("copies every delivery notice, one with no known origin included, and stops after unsubscribe", async () => {
    const world = await createWorld({
      redis: { url: redis.url, prefix: redis.prefix },
      env: { ALERT_SLACK_CHANNEL: ALERTS },
    });
    const bot = await world.start();
    await bot.command("/subscribe deliveries", { channel: "C0COPY" });
    await eventually(
      () =>
        world.slack
          .channelMessages("C0COPY")
          .find((m) => /Subscribed: copies of deliveries/.test(messageText(m))),
      "subscribed",
    );
    const first = await bot.webhook(
      "orders",
      delegationEvent(31_001, "5MSUBONE", tronAddress("sub-deliveries-1")),
    );
    expect(first.status).toBe(200);
    const copy = await eventually(
      () => world.slack.channelMessages("C0COPY").find((m) => messageText(m).includes("5MSUBONE")),
      "the copy of the delivery",
    );
    expect(messageText(copy)).not.toContain("Ack");
    await eventually(
      () => world.slack.channelMessages(ALERTS).find((m) => messageText(m).includes("5MSUBONE")),
      "the original",
    );

    await bot.command("/unsubscribe deliveries", { channel: "C0COPY" });
    await eventually(
      () => world.slack.channelMessages("C0COPY").find((m) => /Unsubscribed/.test(messageText(m))),
      "unsubscribed",
    );
    await bot.webhook("orders", delegationEvent(31_002, "5MSUBTWO", tronAddress("sub-deliveries-2")));
    await eventually(
      () => world.slack.channelMessages(ALERTS).find((m) => messageText(m).includes("5MSUBTWO")),
      "the second original",
    );
    await quietPeriod(1_000);
    expect(world.slack.channelMessages("C0COPY").filter((m) => messageText(m).includes("5MSUBTWO"))).toEqual(
      [],
    );
  }, 30_000);
});

describe("the Slack App Home", () => {
  const post = (bot: Bot, signed: Signed) =>
    fetch(`${bot.origin}/slack/events`, {
      method: "POST",
      headers: { "content-type": signed.contentType, ...signedHeaders(signed.raw) },
      body: signed.raw,
    });
  const homeOf = (world: World, user: string): FakeSlackMessage => ({
    ts: "",
    channel: "",
    text: "",
    via: "home",
    edits: 0,
    blocks: (world.slack.home(user)?.blocks as Record<string, unknown>[] | undefined) ?? [],
  });
  /** A press on a button of the user's Home view (Slack sends a view container, no channel). */
  const pressInHome = (bot: Bot, world: World, label: string) => {
    const payload = {
      type: "block_actions",
      user: { id: OPERATOR.id, username: OPERATOR.name, name: OPERATOR.name, team_id: world.slack.teamId },
      api_app_id: "A0OPSBOT",
      token: "verification-token",
      container: { type: "view", view_id: "V0HOME" },
      view: { id: "V0HOME", type: "home", blocks: homeOf(world, OPERATOR.id).blocks },
      trigger_id: `${Date.now()}.home`,
      team: { id: world.slack.teamId, domain: "fake" },
      actions: [
        {
          ...findButton(homeOf(world, OPERATOR.id), label),
          block_id: "b1",
          action_ts: `${Date.now() / 1000}`,
        },
      ],
    };
    return post(bot, {
      raw: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      contentType: FORM,
    });
  };

  it("shows open alerts with their buttons, balance and Host Mode; a press there acts; a change elsewhere republishes it", async () => {
    const world = await lowBalanceWorld();
    const bot = await world.start();
    const alert = structuredClone(await eventually(() => slackAlerts(world)[0], "the runway alert"));
    await post(bot, homeOpenedBody(OPERATOR, world.slack.teamId));
    await eventually(() => /Alerts \(1 open/.test(messageText(homeOf(world, OPERATOR.id))), "the home view");
    const home = messageText(homeOf(world, OPERATOR.id));
    expect(home).toContain(LOW);
    expect(home).toContain("Host Mode");
    expect(home).toMatch(/Balance/);
    expect(home).toMatch(/Runway/);
    expect(buttonLabels(homeOf(world, OPERATOR.id))).toEqual(["Ack", "Snooze 1h", "Resolve"]);

    await pressInHome(bot, world, "Ack");
    await eventually(
      () => /acknowledged by olga/.test(messageText(homeOf(world, OPERATOR.id))),
      "the home after Ack",
    );
    await eventually(
      () =>
        /acknowledged by olga/.test(
          messageText(world.slack.channelMessages(ALERTS).find((m) => m.ts === alert.ts)),
        ),
      "the alert's message edited after the Ack in the home",
    );
    const acked = structuredClone(
      world.slack.channelMessages(ALERTS).find((m) => m.ts === alert.ts) as FakeSlackMessage,
    );

    // Resolved in the channel: the home is published again without anyone opening it.
    await bot.click(acked, "Resolve");
    await eventually(
      () => /Alerts: none open/.test(messageText(homeOf(world, OPERATOR.id))),
      "the home refreshed",
    );
  }, 30_000);
});

describe("alerts on Telegram", () => {
  const tapAs = (bot: Bot, message: FakeMessage, label: string, from: typeof TG_VIEWER, update: number) =>
    fetch(`${bot.origin}/telegram/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": TELEGRAM_SECRET },
      body: JSON.stringify(callbackUpdate(message, buttonData(message, label), from, update)),
    });
  const tgAlerts = (world: World) =>
    (world.telegram?.messages(TG_CHAT) ?? []).filter((m) => m.text.includes(LOW));
  const labels = (m: FakeMessage | undefined) =>
    (m?.replyMarkup?.inline_keyboard ?? []).flat().map((b) => b.text);

  it("buttons, a viewer's toast, escalation to @username as a reply, Ack edited in place", async () => {
    const world = await lowBalanceWorld(
      { ALERT_SLACK_CHANNEL: "", ALERT_TELEGRAM_CHAT: String(TG_CHAT) },
      true,
    );
    const bot = await world.start();
    const alert = structuredClone(await eventually(() => tgAlerts(world)[0], "the Telegram alert"));
    expect(labels(alert)).toEqual(["Ack", "Snooze 1h", "Resolve"]);

    await tapAs(bot, alert, "Ack", TG_VIEWER, 900_001);
    const toast = await eventually(
      () => world.telegram?.calls("answerCallbackQuery")[0],
      "the viewer's toast",
    );
    expect(String(toast.params.text)).toMatch(/needs the operator role; you are a viewer/);
    expect(world.telegram?.calls("editMessageText")).toEqual([]);

    await escalateOn(bot, await theAlertId(bot));
    const escalation = await eventually(
      () => world.telegram?.messages(TG_CHAT).find((m) => /has been open for/.test(m.text)),
      "the escalation",
    );
    expect(escalation.text).toContain("@oncall_ops");
    expect(escalation.text).not.toContain("U0ONCALL");
    expect(escalation.replyTo).toBe(alert.message_id);

    await bot.tap(alert, "Ack");
    const acked = await eventually(
      () =>
        world.telegram
          ?.messages(TG_CHAT)
          .find((m) => m.message_id === alert.message_id && /acknowledged by/.test(m.text)),
      "the alert acknowledged in place",
    );
    expect(labels(acked)).toEqual(["Snooze 1h", "Resolve"]);
    expect(world.telegram?.calls("editMessageText").length).toBeGreaterThanOrEqual(1);
  }, 30_000);
});

describe("an alert storm", () => {
  /** Slack: at most 50 blocks and 3000 characters a section; Telegram: 4096 characters a message. */
  const SLACK_MAX_BLOCKS = 50;
  const TELEGRAM_MAX_CHARS = 4096;

  it("a deny-list change that alerts 100 watched addresses coalesces per channel, within each platform's limits", async () => {
    const world = await createWorld({ telegram: true, redis: { url: redis.url, prefix: redis.prefix } });
    const bot = await world.start();
    const addresses = Array.from({ length: 100 }, (_, i) => tronAddress(`alert-storm-${process.pid}-${i}`));
    const slack = { platform: "slack" as const, id: "C0OPS" };
    const telegram = { platform: "telegram" as const, id: String(TG_CHAT) };
    for (const address of addresses) {
      for (const [conversation, userId] of [
        [slack, OPERATOR.id],
        [telegram, String(TG_OPERATOR.id)],
      ] as const) {
        const reply = await bot.app.core.handle({
          kind: "command",
          actor: { platform: conversation.platform, userId },
          conversation,
          text: `watch add ${address}`,
        });
        expect(reply.summary).toMatch(/Watching/);
      }
    }
    for (const address of addresses) world.sandbox.screening.setCategory(address, "aml_risk");
    const result = await recheckDenyList(bot.app.deps, onBlocked);
    expect(result.changed).toBe(100);

    const slackStorm = () =>
      world.slack.channelMessages("C0OPS").filter((m) => /Watchlist|alerts above/.test(messageText(m)));
    const seenOnSlack = () => addresses.filter((a) => slackStorm().some((m) => messageText(m).includes(a)));
    await eventually(() => seenOnSlack().length === 100, "all 100 alerts on Slack", 20_000);
    const tgStorm = () =>
      (world.telegram?.messages(TG_CHAT) ?? []).filter((m) => /Watchlist|alerts above/.test(m.text));
    const seenOnTelegram = () => addresses.filter((a) => tgStorm().some((m) => m.text.includes(a)));
    await eventually(() => seenOnTelegram().length === 100, "all 100 alerts on Telegram", 30_000);

    // Coalesced: a handful of messages per channel (one per send slot while the alerts are raised),
    // not one per address.
    expect(slackStorm().length).toBeLessThanOrEqual(10);
    for (const message of slackStorm()) {
      expect(message.blocks?.length ?? 0).toBeLessThanOrEqual(SLACK_MAX_BLOCKS);
      for (const block of message.blocks ?? []) {
        const text = (block as { text?: { text?: string } }).text?.text ?? "";
        expect(text.length).toBeLessThanOrEqual(3000);
      }
    }
    expect(tgStorm().length).toBeLessThanOrEqual(15);
    for (const message of tgStorm()) expect(message.html.length).toBeLessThanOrEqual(TELEGRAM_MAX_CHARS);

    // Every alert stays owned: an alert posted alone has its own buttons, a digest's act on all it lists.
    const ackCount = (l: string): number => (l === "Ack" ? 1 : Number(/^Ack all (\d+)$/.exec(l)?.[1] ?? 0));
    const owned = slackStorm()
      .flatMap((m) => buttonLabels(m))
      .reduce((n, l) => n + ackCount(l), 0);
    expect(owned).toBe(100);
    const tgOwned = tgStorm()
      .flatMap((m) => labels(m))
      .reduce((n, l) => n + ackCount(l), 0);
    expect(tgOwned).toBe(100);
    const digest = structuredClone(
      slackStorm()
        .filter((m) => buttonLabels(m).some((l) => /^Ack all \d+$/.test(l)))
        .sort(
          (a, b) =>
            buttonLabels(b).reduce((n, l) => n + ackCount(l), 0) -
            buttonLabels(a).reduce((n, l) => n + ackCount(l), 0),
        )[0],
    );
    expect(digest).toBeDefined();
    const label = buttonLabels(digest).find((l) => /^Ack all/.test(l)) ?? "";
    const listed = ackCount(label);
    expect(listed).toBeGreaterThan(1);
    await bot.click(digest as FakeSlackMessage, label);
    await eventually(
      () =>
        world.slack
          .channelMessages("C0OPS")
          .find((m) => m.ts === digest?.ts && /alerts acknowledged by olga/.test(messageText(m))),
      "the digest acknowledged in place",
    );
    const acknowledged = (await listAlerts(bot.app.deps, false)).filter((a) => a.state === "acknowledged");
    expect(acknowledged).toHaveLength(listed);
  }, 90_000);
});

const labels = (m: FakeMessage | undefined) =>
  (m?.replyMarkup?.inline_keyboard ?? []).flat().map((b) => b.text);

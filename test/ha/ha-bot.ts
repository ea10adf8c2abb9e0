import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { sleep } from "../../src/clock.js";
import { STORE_UNAVAILABLE_LINE } from "../../src/core/faults/store-unavailable.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { redisKeyLayout } from "../../src/store/redis-connect.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { ADMIN, type Bot, createWorld, eventually, OPERATOR, type World } from "../support/app-world.js";
import { healthStatus } from "../support/processes.js";
import type { HaRedis } from "../support/redis-ha.js";
import { quietPeriod } from "../webhooks/bot.js";
import { delegationEvent } from "../webhooks/signed.js";

/**
 * The whole bot (`startApp`, two instances) configured with REDIS_SENTINELS or REDIS_CLUSTER_NODES:
 * a Confirm, webhooks with replays, a pending screening; then a master killed in the middle of a
 * webhook burst and of a Confirm. What was acknowledged is posted once; one order per confirmation.
 */
const CHANNEL = "C0OPS";
const ALERTS = "C0ALERTS";
/** The screening stays pending this long; the poller reads it 2 s after the order, then 2 s later. */
const SCREENING_MS = 3_000;
const FAILOVER_MS = 30_000;
/**
 * A job that was running on the master that died may have lost its lock with it: BullMQ's stalled
 * check (every 30 s) hands it to a worker again, so the last of them may take that long.
 */
const JOBS_RESUME_MS = 70_000;
const FAILOVER_TEST_MS = 150_000;

async function haWorld(ha: HaRedis, o: { orderLatencyMs?: number } = {}) {
  const prefix = `ha${randomUUID().slice(0, 8)}:`;
  const world = await createWorld({
    env: { ...ha.env, ALERT_SLACK_CHANNEL: ALERTS },
    redisPrefix: prefix,
    sandbox: {
      screening: { durationMs: SCREENING_MS, maxWaitMs: 200 },
      energy: { order5mLatencyMs: o.orderLatencyMs ?? 5 },
    },
  });
  const [a, b] = [await world.start(), await world.start()];
  return { world, a, b, keys: redisKeyLayout(ha.target.kind, prefix) };
}

const posted = (world: World, channel: string): string[] =>
  world.slack
    .channelMessages(channel)
    .filter((m) => m.via === "chat.postMessage")
    .map((m) => messageText(m));

const naming = (texts: string[], id: string) => texts.filter((t) => new RegExp(`\\b${id}\\b`).test(t));

async function quote(world: World, bot: Bot, address: string): Promise<FakeSlackMessage> {
  expect((await bot.command(`/energy ${address} 65k`)).status).toBe(200);
  return structuredClone(
    await eventually(
      () =>
        world.slack
          .channelMessages(CHANNEL)
          .find((m) => messageText(m).includes(address) && buttonLabels(m).some((l) => /^Confirm/.test(l))),
      "the quote",
    ),
  );
}

/** The bot's last warning and error lines, for a failure's message: what it said while it refused. */
const lastWarnings = (bot: Bot): string =>
  bot.logs
    .map(
      (line) => JSON.parse(line) as { level: number; time: number; msg: string; err?: { message?: string } },
    )
    .filter((entry) => entry.level >= 40)
    .slice(-5)
    .map(
      (e) =>
        `${new Date(e.time).toISOString().slice(11, 23)} ${e.msg}${e.err?.message ? `: ${e.err.message}` : ""}`,
    )
    .join(" | ");

/** As the service sends a webhook: again every 200 ms until a 2xx; counts the refusals. */
async function deliver(bot: Bot, event: object): Promise<number> {
  let refused = 0;
  const deadline = Date.now() + FAILOVER_MS * 2;
  for (;;) {
    const status = await bot.webhook("orders", event).then(
      (r) => r.status,
      () => 0,
    );
    if (status >= 200 && status < 300) return refused;
    expect(status === 0 || status === 503).toBe(true);
    refused += 1;
    if (Date.now() > deadline)
      throw new Error(`a webhook was never acknowledged; the bot's last warnings: ${lastWarnings(bot)}`);
    await sleep(200);
  }
}

export function runHaBot(name: string, ha: () => HaRedis): void {
  describe(`the whole bot on ${name}`, () => {
    it("a Confirm clicked on both instances places one order; its webhook sent to both and replayed is posted once", async () => {
      const { world, a, b } = await haWorld(ha());
      const address = tronAddress(`ha-energy-${name}`);
      const message = await quote(world, a, address);
      const clicks = await Promise.all([
        a.click(message, /^Confirm/, { user: OPERATOR, actionTs: "1700000001.000100" }),
        b.click(message, /^Confirm/, { user: ADMIN, actionTs: "1700000001.000200" }),
      ]);
      expect(clicks.map((r) => r.status)).toEqual([200, 200]);
      await eventually(
        () => world.slack.channelMessages(CHANNEL).find((m) => m.ts === message.ts && m.edits >= 1),
        "the outcome in place of the quote",
      );
      await quietPeriod(300);
      expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
      const order = world.sandbox.energy.orders()[0]!;
      const event = delegationEvent(9_100, order.orderId, address);
      const answers = await Promise.all([a.webhook("orders", event), b.webhook("orders", event)]);
      expect((await a.webhook("orders", event)).status).toBe(200);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      await eventually(() => naming(posted(world, CHANNEL), order.orderId).length > 0, "the delivery notice");
      await quietPeriod(500);
      expect(naming(posted(world, CHANNEL), order.orderId)).toHaveLength(1);
    });

    it("a pending screening is polled and its result posted once", async () => {
      const { world, a } = await haWorld(ha());
      const address = tronAddress(`ha-screen-${name}`);
      expect((await a.command(`/screen ${address}`)).status).toBe(200);
      await eventually(
        () =>
          posted(world, CHANNEL).find((t) => t.includes(address.slice(0, 8)) && !/pending/i.test(t)) !==
          undefined,
        "the screening result",
        15_000,
      );
      await quietPeriod(500);
      expect(world.sandbox.calls("screening.create")).toHaveLength(1);
      expect(world.sandbox.calls("screening.read")).toHaveLength(2);
    });
  });
}

/** Kills a master per test, then restores the killed node as a replica. */
export function runHaFailover(name: string, ha: () => HaRedis): void {
  describe(`a master killed under the whole bot on ${name}`, () => {
    // A test that fails midway still leaves the topology redundant for the next one.
    afterEach(() => ha().restore(), 30_000);
    it(
      "in a webhook burst: refused ones are retried, every acknowledged one is posted once; /healthz recovers",
      async () => {
        const { world, a, b, keys } = await haWorld(ha());
        const events = Array.from({ length: 40 }, (_, i) =>
          delegationEvent(9_200 + i, `5MFAIL${i}`, tronAddress(`ha-burst-${i}`)),
        );
        const refusals: number[] = [];
        // Four senders at once, each to one of the two instances, each webhook until it is acknowledged.
        const lanes = [0, 1, 2, 3].map(async (lane) => {
          for (const event of events.filter((_, i) => i % 4 === lane)) {
            refusals.push(await deliver(lane % 2 === 0 ? a : b, event));
          }
        });
        await eventually(() => refusals.length >= 12, "the first acknowledged webhooks");
        // The master that holds the queues (on a cluster, the slot of the jobs' hash tag).
        await ha().killMaster(`${keys.jobs}:webhooks`);
        expect(await healthStatus(a.origin)).toBe(503);
        await ha().failedOver(FAILOVER_MS);
        await Promise.all(lanes);
        expect(refusals).toHaveLength(events.length);
        await eventually(
          () => events.every((e) => naming(posted(world, ALERTS), e.order_id).length > 0),
          "every acknowledged delivery posted",
          JOBS_RESUME_MS,
        ).catch((error: Error) => {
          const missing = events.filter((e) => naming(posted(world, ALERTS), e.order_id).length === 0);
          throw new Error(
            `${error.message}: never posted ${missing.map((e) => e.order_id).join(", ")}; last warnings: ${lastWarnings(a)} || ${lastWarnings(b)}`,
          );
        });
        await quietPeriod(1_500);
        const texts = posted(world, ALERTS);
        for (const e of events) expect(naming(texts, e.order_id)).toHaveLength(1);
        await eventually(
          async () => (await fetch(`${a.origin}/healthz`)).status === 200,
          "healthz 200 again",
        );
      },
      FAILOVER_TEST_MS,
    );

    it(
      "in a Confirm: one order, its outcome once, or one line saying nothing was done and the button still works",
      async () => {
        const { world, a, keys } = await haWorld(ha(), { orderLatencyMs: 400 });
        const address = tronAddress(`ha-confirm-${name}`);
        const message = await quote(world, a, address);
        // The click is in flight (the order takes 400 ms at the service) when the master dies.
        const click = a.click(message, /^Confirm/);
        await sleep(100);
        await ha().killMaster(`${keys.jobs}:tracked`);
        expect((await click).status).toBe(200);
        await ha().failedOver(FAILOVER_MS);
        const told = () =>
          world.slack.ephemerals(OPERATOR.id).some((m) => messageText(m) === STORE_UNAVAILABLE_LINE);
        const outcome = () =>
          world.slack
            .channelMessages(CHANNEL)
            .find((m) => m.ts === message.ts && m.edits >= 1 && !buttonLabels(m).length);
        await eventually(() => outcome() ?? told(), "the outcome or the unavailable line", FAILOVER_MS);
        if (!outcome()) {
          // Nothing was done: the same button works again.
          expect(world.sandbox.calls("order5m.create")).toEqual([]);
          expect((await a.click(message, /^Confirm/, { actionTs: "1700000002.000100" })).status).toBe(200);
          await eventually(outcome, "the outcome after the second click", FAILOVER_MS);
        }
        await a.app.drain(5_000);
        await quietPeriod(1_000);
        expect(world.sandbox.energy.orders()).toHaveLength(1);
        const order = world.sandbox.energy.orders()[0]!;
        expect(messageText(outcome())).toContain(order.orderId);
        // Nothing else names the order: the outcome took the quote's place, once.
        const elsewhere = world.slack
          .channelMessages(CHANNEL)
          .filter((m) => m.ts !== message.ts && messageText(m).includes(order.orderId));
        expect(elsewhere).toEqual([]);
      },
      FAILOVER_TEST_MS,
    );
  });
}

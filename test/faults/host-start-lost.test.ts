import { afterEach, describe, expect, it } from "vitest";
import { hostUnknownYetLine } from "../../src/core/host/reconcile-host-start.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { type Bot, createWorld, eventually, OPERATOR, type World } from "../support/app-world.js";
import { testRedis } from "../support/redis.js";
import { quietPeriod } from "../webhooks/bot.js";

/**
 * A Host Mode start whose answer is lost on the way back, through the whole bot (startApp, real
 * Redis and BullMQ, Bolt against the fake Slack API, the sandbox over HTTP): the quote says once
 * that the outcome is not known yet, the reconciler asks again, the outcome takes the quote's
 * place, and the address's cycles are posted in that message's thread.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const CHANNEL = "C0OPS";

async function hostQuote(world: World, bot: Bot, address: string): Promise<FakeSlackMessage> {
  expect((await bot.command(`/host start ${address}`)).status).toBe(200);
  const found = await eventually(
    () => world.slack.channelMessages(CHANNEL).find((m) => buttonLabels(m).includes("Start Host Mode")),
    `the Host Mode quote for ${address}`,
  );
  return structuredClone(found);
}

const current = (world: World, message: FakeSlackMessage): string =>
  messageText(world.slack.channelMessages(CHANNEL).find((m) => m.ts === message.ts));

const spentSun = async (): Promise<number> => {
  const day = new Date().toISOString().slice(0, 10);
  return Number((await redis.connect().get(`${redis.prefix}spend:slack:${OPERATOR.id}:${day}`)) ?? "0");
};

describe("Host Mode start: the answer lost after the service started it", () => {
  it("not known yet once, then 'active' in place of the quote; one start; cycles in the quote's thread", async () => {
    const world = await createWorld({
      redis: { url: redis.url, prefix: redis.prefix },
      // The first cycle after the restart-free start comes later than this test looks.
      sandbox: { energy: { hostFirstCycleMs: 120_000 } },
    });
    const bot = await world.start();
    const address = tronAddress("host-lost-answer");
    const q = await hostQuote(world, bot, address);
    world.sandbox.inject("host.infinitystart", { kind: "lost" });
    expect((await bot.click(q, "Start Host Mode")).status).toBe(200);
    await eventually(() => current(world, q).includes(hostUnknownYetLine(address)), "the not-known-yet line");
    await eventually(
      () => current(world, q).includes(`Host Mode is active for ${address}`),
      "the reconciled outcome in the quote's place",
      20_000,
    );
    await quietPeriod(1_000);
    // One channel message (the quote, now the outcome); the start sent twice, started once.
    expect(world.slack.channelMessages(CHANNEL).filter((m) => !m.threadTs)).toHaveLength(1);
    expect(world.sandbox.calls("host.infinitystart").map((c) => c.status)).toEqual([-1, 200]);
    expect(world.sandbox.energy.hostAddress(address)?.status).toBe("active");
    expect(await spentSun()).toBe(4_000_000);
    // The reconciler remembered where the start was confirmed: a cycle lands in the quote's thread.
    world.sandbox.energy.hostCycle(address, { energyUsed: "65k" });
    const cycle = await eventually(
      () => world.slack.channelMessages(CHANNEL).find((m) => /Host Mode delegation/.test(messageText(m))),
      "the cycle's message",
    );
    expect(cycle.threadTs).toBe(q.ts);
  }, 60_000);
});

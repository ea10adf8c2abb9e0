import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { createWorld, eventually, type World } from "../support/app-world.js";

/**
 * `host status` through the whole bot (startApp, the sandbox over HTTP, its Host Mode callbacks
 * reaching the bot's callback route, Bolt against the fake Slack API): the cycles the callbacks
 * reported and what they charged are counted beside the service's Time Status.
 */
const CHANNEL = "C0OPS";
const VIEWER = { id: "U0VIEW", name: "vic" };

const current = (world: World, message: FakeSlackMessage) =>
  world.slack.channelMessages(CHANNEL).find((m) => m.ts === message.ts);
const cycleMessages = (world: World) =>
  world.slack.channelMessages(CHANNEL).filter((m) => /Host Mode delegation/.test(messageText(m)));

describe("host status with real cycle callbacks", () => {
  it("the Status button counts the cycles called back since the start and what they charged", async () => {
    const world = await createWorld({ sandbox: { energy: { hostFirstCycleMs: 20 } } });
    const bot = await world.start();
    const address = tronAddress("host-status-world");
    await bot.command(`/host start ${address}`);
    const quote = structuredClone(
      await eventually(
        () => world.slack.channelMessages(CHANNEL).find((m) => buttonLabels(m).includes("Start Host Mode")),
        "the Host Mode quote",
      ),
    );
    await bot.click(quote, "Start Host Mode");
    const started = structuredClone(
      await eventually(() => {
        const m = current(world, quote);
        return buttonLabels(m).includes("Status") && m;
      }, "the start message with its Status button"),
    );
    expect(messageText(started)).toContain("Confirmed by Time Status: active, infinity");
    await eventually(() => cycleMessages(world).length === 1, "the first cycle's message");
    world.sandbox.energy.hostCycle(address, { energyUsed: "65k" });
    await eventually(() => cycleMessages(world).length === 2, "the second cycle's message");

    await bot.click(started, "Status", { user: VIEWER });
    const status = await eventually(() => {
      const text = messageText(current(world, started));
      return text.includes("Host Mode status") && text;
    }, "the status in the start message's place");
    const cycles = world.sandbox.energy.hostAddress(address)?.cycles ?? [];
    expect(cycles).toHaveLength(2);
    expect(status).toContain("2 cycles in callbacks since the start");
    expect(status).toContain("*Charged since start*\n6 TRX");
    expect(status).toContain(`delegation \`${cycles[1]?.orderId}\``);
    expect(status).toContain("olga");
  }, 30_000);
});

import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels } from "../adapters/slack/harness.js";
import { eventually } from "../support/app-world.js";
import { exited } from "../support/processes.js";
import { quietPeriod } from "../webhooks/bot.js";
import { CHANNEL, createFaultWorld } from "./fault-world.js";

/**
 * Two instances on one Redis, the bot's own intent timings (a run's lease of 4 s, the click's
 * recovery 30 s off for an outcome still on its way): one is killed right after it claimed a
 * Confirm, and is not restarted. The survivor carries the spend out as soon as the dead run's
 * lease lapses, not when the click's delayed job comes due (issue 44, finding 5: it took 30 s).
 */
const DEFAULT_TIMINGS = { OPSBOT_TEST_INTENT_RECOVER_MS: "" };
const OUTCOME = /Energy delegated|Energy order \(already placed\)/;

describe("a survivor takes over a killed instance's Confirm", () => {
  it("within seconds of the dead run's lease lapsing: one order, one outcome in the quote's place", async () => {
    const world = await createFaultWorld({ sandbox: { energy: { order5mLatencyMs: 20 } } });
    const survivor = await world.start(DEFAULT_TIMINGS);
    const victim = await world.start({ ...DEFAULT_TIMINGS, OPSBOT_TEST_KILL_AT: "after-claim" });
    const address = tronAddress(`survivor-${process.pid}`);
    const quote = await world.quote(victim, address);
    const died = exited(victim.child);
    await world.click(victim, quote, /^Confirm/).catch(() => undefined);
    expect((await died).signal).toBe("SIGKILL");
    // The lease is 4 s; the survivor looks just past it (the click's job at 30 s is far off).
    await eventually(() => world.shown(OUTCOME).length > 0, "the outcome, posted by the survivor", 9_000);
    await quietPeriod(2_000);
    expect(world.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    const shown = world.shown(OUTCOME);
    expect(shown.map((m) => m.ts)).toEqual([quote.ts]);
    expect(buttonLabels(shown[0])).toEqual([]);
    expect(world.slack.channelMessages(CHANNEL)).toHaveLength(1);
    expect(survivor.output()).toContain(
      "a confirmed action's outcome was not delivered by the instance that ran it",
    );
  }, 120_000);
});

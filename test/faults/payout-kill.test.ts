import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import { eventually } from "../support/app-world.js";
import { exited } from "../support/processes.js";
import { quietPeriod } from "../webhooks/bot.js";
import { CHANNEL, createFaultWorld } from "./fault-world.js";

/**
 * SIGKILL right after the orchestrator accepted a payout run, before anything was recorded: the
 * next bot on the same Redis runs the confirmation again with the same key (answered 208 with the
 * first order), follows the run and puts its outcome in the quote's place. One order, one message,
 * the run's total counted once. With the bot's own timings (the click's recovery job 30 s off, the
 * run's lease 4 s): the next bot recovers the confirmation as it starts, with a job due at once
 * (issue 39: it used to wait for the click's delayed job, ~28 s after the restart).
 */
/** Blank: the bot's default intent timings (fault-world shortens them otherwise). */
const DEFAULT_TIMINGS = { OPSBOT_TEST_INTENT_RECOVER_MS: "" };

/** The pino lines of a bot's output with message `msg`. */
const logLines = (output: string, msg: string): Record<string, unknown>[] =>
  output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
const RECOVERED_AT_START =
  "an open confirmation is recovered at start: carried out once its run's lease is free";
describe("SIGKILL during a payout run's Confirm", () => {
  it("after the orchestrator's answer: one order (202 then 208), one outcome in place, counted once", async () => {
    const world = await createFaultWorld({ sandbox: { energy: { orchestratorStepMs: 50 } } });
    const list = [1, 2, 3].map((n) => tronAddress(`fault-payout-${process.pid}-${n}`));
    const first = await world.start({ OPSBOT_TEST_KILL_AT: "after-answer", ...DEFAULT_TIMINGS });
    await world.command(first, `/energy 65k ${list.join(" ")}`);
    const quote = structuredClone(
      await eventually(
        () =>
          world.slack.channelMessages(CHANNEL).find((m) => buttonLabels(m).some((l) => /^Confirm/.test(l))),
        "the payout quote",
        15_000,
      ),
    );
    expect(messageText(quote)).toContain("Payout run quote");
    const died = exited(first.child);
    await world.click(first, quote, /^Confirm/).catch(() => undefined);
    expect((await died).signal).toBe("SIGKILL");
    const second = await world.start(DEFAULT_TIMINGS);
    await eventually(
      () => world.shown(/Payout run delivered/).length > 0,
      "the outcome in the channel",
      60_000,
    );
    await quietPeriod(3_000);
    // What the restarted bot asked for: the confirmation's recovery due at once, under a lease of seconds.
    expect(logLines(second.output(), RECOVERED_AT_START)).toEqual([
      expect.objectContaining({ action: "payout.confirm", delayMs: 0, leaseMs: 4_000 }),
    ]);

    const creates = world.sandbox.calls("orchestrator.create");
    expect(creates.map((c) => c.status)).toEqual([202, 208]);
    expect(new Set(creates.map((c) => c.headers["x-idempotency-key"])).size).toBe(1);
    const orders = world.sandbox.energy.orders().filter((o) => list.includes(o.receiveAddress));
    expect(orders).toHaveLength(3);
    const shown = world.shown(/Payout run delivered/);
    expect(shown.map((m) => m.ts)).toEqual([quote.ts]);
    expect(world.slack.channelMessages(CHANNEL).filter((m) => m.threadTs === undefined)).toHaveLength(1);
    // The run's quote (the Confirm button's amount) counted once toward the day.
    const quotedTrx = /^Confirm ([\d.,]+) TRX$/.exec(buttonLabels(quote)[0] ?? "")?.[1] ?? "0";
    expect(await world.spentSun()).toBe(Math.round(Number(quotedTrx.replace(/,/g, "")) * 1_000_000));
    // A kill between placing and recording: after the restart the ledger holds the run once.
    const entries = (await world.ledger()).filter((e) => e.kind === "payout");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ result: "ordered", addresses: 3, amountSun: await world.spentSun() });
    expect(entries[0]!.confirmationId).not.toBe("");
  }, 300_000);
});

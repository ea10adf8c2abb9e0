import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import type { SlackUser } from "../adapters/slack/payloads.js";
import { eventually } from "../support/app-world.js";
import { exited } from "../support/processes.js";
import { quietPeriod } from "../webhooks/bot.js";
import { CHANNEL, createFaultWorld } from "./fault-world.js";

/**
 * The case 4 on real processes: an Approve whose orchestrator order is sent, then the bot
 * is killed (SIGKILL), or stopped (SIGTERM) with a budget shorter than the answer, while the
 * service's answer is still on its way. The next bot's recovery job
 * carries the approved request on: it sends the order again with the same idempotency key (the
 * service answers with the first one), tracks and records it, and the approval's message shows
 * the order; it never says "nothing was done" about a request whose order exists.
 */
const SECOND: SlackUser = { id: "U0SECOND", name: "sam" };

describe("a stop during an Approve: the approved request is carried on after the restart", () => {
  it.each([
    ["SIGKILL", 4_000],
    // A routine stop whose budget (9 s) ends before the answer (12 s): the order is in flight.
    ["SIGTERM", 12_000],
  ] as const)(
    "%s with the answer %i ms away: one order at the service, shown in the approval's place, audited",
    async (signal, answerMs) => {
      const world = await createFaultWorld({
        env: { OPS_APPROVAL_TRX: "10", OPS_OPERATORS: "slack:U0OPER,slack:U0SECOND" },
      });
      const address = tronAddress("approve-kill");
      const first = await world.start();
      const quote = await world.quote(first, address, "700k");
      await world.click(first, quote, /^Confirm/);
      const request = await eventually(
        () => {
          const m = world.slack.channelMessages(CHANNEL).find((x) => x.ts === quote.ts);
          return m && buttonLabels(m).includes("Approve") ? structuredClone(m) : undefined;
        },
        "the approval request in the quote's place",
        15_000,
      );
      // The order takes effect at once; its answer comes back after `answerMs`.
      world.sandbox.inject("orchestrator.create", { kind: "late", ms: answerMs });
      const died = exited(first.child);
      const click = world.click(first, request, /^Approve/, SECOND).catch(() => undefined);
      await eventually(
        () => world.sandbox.calls("orchestrator.create").length === 1,
        "the order sent",
        15_000,
      );
      first.child.kill(signal);
      const exit = await died;
      if (signal === "SIGKILL") expect(exit.signal).toBe("SIGKILL");
      await click;

      await world.start();
      const shown = await eventually(
        () => {
          const m = world.slack.channelMessages(CHANNEL).find((x) => x.ts === quote.ts);
          return m && /Orchestrator order/.test(messageText(m)) ? messageText(m) : undefined;
        },
        "the order in the approval's place",
        45_000,
      );
      await quietPeriod(2_000);
      expect(shown).toMatch(/approved by sam/);
      expect(world.slack.channelMessages(CHANNEL).map(messageText).join("\n")).not.toMatch(
        /nothing was done/,
      );
      // Sent twice with one key: placed once (202), answered with the first order (208).
      const calls = world.sandbox.calls("orchestrator.create");
      expect(new Set(calls.map((c) => c.headers["x-idempotency-key"])).size).toBe(1);
      expect(calls.map((c) => c.status)).toEqual([202, 208]);
      const audit = (await world.redis.lrange("opsbot:audit", 0, 50)).map((e) => JSON.parse(e));
      const approved = audit.find((e) => e.verb === "approval approve" && e.result === "ok");
      expect(approved?.message).toContain("carried on after a restart");
      expect(approved?.orderIds).toHaveLength(1);
      expect(audit.some((e) => e.verb === "energy" && /orchestrator accepted/.test(e.message))).toBe(true);
    },
    300_000,
  );
});

import { describe, expect, it } from "vitest";
import { messageText } from "../adapters/slack/harness.js";
import { eventually, OPERATOR } from "../support/app-world.js";
import { exited } from "../support/processes.js";
import { quietPeriod } from "../webhooks/bot.js";
import { CHANNEL, createFaultWorld } from "./fault-world.js";

/**
 * SIGKILL during a Delete sub-user click, on real processes (a child bot on a private Redis, the
 * sandbox and the fake Slack API in the test), then a second bot on the same Redis: the deletion
 * is carried out by the recovery, the service is sent one DELETE, and the outcome replaces the
 * message that carried the button.
 */
async function killedDeletion(killAt: "after-claim" | "before-reply") {
  const world = await createFaultWorld({ env: { OPS_ADMINS: `slack:${OPERATOR.id}` } });
  const sub = world.sandbox.reports.addSubuser(world.sandbox.account);
  const first = await world.start({ OPSBOT_TEST_KILL_AT: killAt });
  await world.command(first, `/subuser delete ${sub.userId}`);
  const asked = structuredClone(
    await eventually(() => world.shown(/Delete sub-user \d+\?/)[0], "the deletion message", 15_000),
  );
  const died = exited(first.child);
  const click = world.click(first, asked, /^Delete sub-user$/).catch(() => undefined);
  expect((await died).signal).toBe("SIGKILL");
  await click;
  await world.start();
  await eventually(() => world.shown(/Sub-user deleted/).length > 0, "the outcome in the channel", 30_000);
  await quietPeriod(2_000);
  return { world, sub, asked };
}

describe("SIGKILL during Delete sub-user: one DELETE, one outcome in the message's place", () => {
  it.each(["after-claim", "before-reply"] as const)(
    "killed %s",
    async (killAt) => {
      const { world, sub, asked } = await killedDeletion(killAt);
      expect(world.sandbox.calls("subuser.delete").map((c) => c.status)).toEqual([200]);
      expect(world.sandbox.accounts.byUserId(sub.userId)).toBeUndefined();
      const shown = world.shown(/Sub-user deleted/);
      expect(shown.map((m) => m.ts)).toEqual([asked.ts]);
      expect(messageText(shown[0])).toContain(`Sub-user ${sub.googleId} deleted`);
      expect(world.slack.channelMessages(CHANNEL).filter((m) => !m.threadTs)).toHaveLength(1);
    },
    300_000,
  );
});

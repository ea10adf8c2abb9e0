import { describe, expect, it } from "vitest";
import { createRedisStore } from "../../../src/store/redis-store.js";
import { startFakeMicrosoft } from "../../fakes/teams-microsoft.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress } from "../../support/spend-harness.js";
import { cardOf, startTeamsHarness } from "./harness.js";

describe("teams: two instances sharing one Redis store", () => {
  it("a Confirm pressed at both at once places one order; one answers the card, the other refuses", async () => {
    const redis = testRedis();
    try {
      const fake = await startFakeMicrosoft();
      const store = () => createRedisStore({ redis: redis.connect(), prefix: redis.prefix });
      const one = await startTeamsHarness({ fake, store: store() });
      const two = await startTeamsHarness({ fake, store: store() });
      await one.say(`energy ${freshAddress("teams-2")} 65k`);
      await one.settle();
      const quote = cardOf(fake.activities.at(-1)?.body ?? {}) ?? {};
      const answers = await Promise.all([one.press(quote, /^Confirm/), two.press(quote, /^Confirm/)]);
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as { type: string }[];
      await Promise.all([one.settle(), two.settle()]);
      expect(one.sandbox.calls("order5m.create").length + two.sandbox.calls("order5m.create").length).toBe(1);
      expect(bodies.map((b) => b.type).sort()).toEqual([
        "application/vnd.microsoft.activity.message",
        "application/vnd.microsoft.card.adaptive",
      ]);
      await one.close();
      await two.close();
      await fake.close();
    } finally {
      await redis.cleanup();
    }
  });
});

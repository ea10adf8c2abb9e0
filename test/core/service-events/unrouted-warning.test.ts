import { describe, expect, it } from "vitest";
import type { createMemoryLogger } from "../../../src/core/logger.js";
import { parseServiceEvent } from "../../../src/core/service-events/events.js";
import { createNotificationRouter } from "../../../src/core/service-events/route.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { delegationEvent } from "../../webhooks/signed.js";
import { stubDeps } from "../support.js";

/** Deliveries for orders nobody here placed, with no alert channel set: logged, never posted. */
describe("a notification with nowhere to go", () => {
  it("is one warning a minute with the count since the last, not one line per delivery", async () => {
    const deps = stubDeps();
    const logger = deps.logger as ReturnType<typeof createMemoryLogger>;
    const router = createNotificationRouter(deps, { alerts: [], originGraceMs: [] });
    const deliver = async (n: number) => {
      const parsed = parseServiceEvent("orders", delegationEvent(n, `UNKNOWN${n}`, tronAddress(`u${n}`)));
      if (parsed.kind !== "event") throw new Error(`not an event: ${parsed.kind}`);
      expect(await router.route(parsed.event, { deferrals: 0 })).toBe("done");
    };
    const warnings = () => logger.records.filter((r) => r.level === "warn");

    for (const n of [1, 2, 3, 4]) await deliver(n);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]?.obj).toMatchObject({ alsoSinceLastWarning: 0 });

    deps.clock.advance(60_000);
    await deliver(5);
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]?.obj).toMatchObject({ alsoSinceLastWarning: 3 });
    expect(warnings()[1]?.msg).toMatch(
      /no alert channel: set ALERT_SLACK_CHANNEL, ALERT_TELEGRAM_CHAT or ALERT_TEAMS_CONVERSATION/,
    );
    expect(deps.posted).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { alertIdOf, readAlert } from "../../../src/core/alerts/alert.js";
import { createNotificationRouter } from "../../../src/core/service-events/route.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import type { FakeSlackMessage } from "../../fakes/slack-api.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress } from "../../support/spend-harness.js";
import {
  buttonLabels,
  CHANNEL,
  messageText,
  OPERATOR,
  type SlackHarness,
  startSlackHarness,
  VIEWER,
} from "./harness.js";

/**
 * Host Mode past the daily cap on Slack (issue 39, item 2): real Bolt against the fake Web API, the
 * sandbox over HTTP, Redis. Host Mode is started with its quote and Start button; its cycle
 * callbacks go through the notification router as the callback route hands them over, on a clock
 * the test moves to the next UTC day. OPS_DAILY_LIMIT_TRX=10.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const DAY_MS = 24 * 3_600_000;
const PAST_CAP = /took the UTC day of .* past the daily cap/;

async function setup() {
  // Noon UTC of today, moving with real time: a run near midnight stays in one day.
  const noon = Date.parse(`${new Date().toISOString().slice(0, 10)}T12:00:00Z`);
  const began = Date.now();
  const clock = { offsetMs: 0 };
  const h = await startSlackHarness({
    store: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }),
    settings: { dailyLimitTrx: "10" },
    now: () => noon + (Date.now() - began) + clock.offsetMs,
  });
  const router = createNotificationRouter(h.deps, { alerts: [], originGraceMs: [] });
  let seq = 0;
  const cycles = async (address: string, charged: readonly string[]) => {
    for (const amount of charged) {
      const n = seq++;
      const cycle = {
        event: "host.cycle" as const,
        address,
        order_id: `T-over-${n}`,
        hash: `h${n}`,
        charged: amount,
      };
      await router.route(cycle, { deferrals: 0 });
    }
    await h.settle();
  };
  return { h, clock, cycles };
}

async function startHost(h: SlackHarness, address: string): Promise<void> {
  await h.command(`/host start ${address}`);
  await h.settle();
  await h.click(last(h), "Start Host Mode");
  await h.settle();
  expect(messageText(last(h))).toContain("Host Mode started");
}

const last = (h: SlackHarness): FakeSlackMessage => structuredClone(h.fake.channelMessages(CHANNEL).at(-1)!);
const alertsShown = (h: SlackHarness) =>
  h.fake.channelMessages(CHANNEL).filter((m) => PAST_CAP.test(messageText(m)));
const current = (h: SlackHarness, m: FakeSlackMessage) =>
  h.fake.channelMessages(CHANNEL).find((x) => x.ts === m.ts);
const today = (h: SlackHarness) => new Date(h.deps.now()).toISOString().slice(0, 10);

describe("slack: Host Mode cycles past the daily cap", () => {
  it("raise one alert a day with Stop Host Mode; a viewer is refused; a double click stops once", async () => {
    const { h, clock, cycles } = await setup();
    const address = freshAddress("slack-over-cap");
    await startHost(h, address);

    // 4 + 2 + 2 = 8 TRX: within the cap, no alert; every cycle is posted.
    await cycles(address, ["4.0000", "2.0000", "2.0000"]);
    expect(alertsShown(h)).toEqual([]);
    await cycles(address, ["4.0000"]);
    const [alert] = structuredClone(alertsShown(h));
    expect(alertsShown(h)).toHaveLength(1);
    const said = messageText(alert);
    expect(said).toContain(address);
    expect(said).toContain("12 TRX charged today, daily cap 10 TRX (OPS_DAILY_LIMIT_TRX)");
    expect(said).toContain("Host Mode cycles make up 12 TRX of it");
    expect(said).toMatch(/not acknowledged yet/);
    expect(buttonLabels(alert)).toEqual(["Stop Host Mode", "Ack", "Snooze 1h", "Resolve"]);

    // More cycles the same day: posted, but no second alert.
    const before = h.fake.channelMessages(CHANNEL).length;
    await cycles(address, ["2.0000", "4.0000"]);
    expect(h.fake.channelMessages(CHANNEL).length).toBe(before + 2);
    expect(alertsShown(h)).toHaveLength(1);

    // A viewer's Stop: refused privately, nothing asked of the service, the button stays.
    await h.click(alert!, "Stop Host Mode", { user: VIEWER });
    await h.settle();
    expect(h.fake.ephemerals(VIEWER.id).map(messageText)).toEqual([
      expect.stringMatching(/needs the operator role; you are a viewer/),
    ]);
    expect(h.sandbox.calls("host.stop")).toEqual([]);

    // A double click: one stop call; the alert is resolved and its message says Host Mode stopped.
    await Promise.all([
      h.click(alert!, "Stop Host Mode", { actionTs: "1700000003.000100" }),
      h.click(alert!, "Stop Host Mode", { actionTs: "1700000003.000200" }),
    ]);
    await h.settle();
    expect(h.sandbox.calls("host.stop")).toHaveLength(1);
    expect(h.sandbox.calls("host.stop")[0]?.body).toMatchObject({ address });
    expect(h.fake.ephemerals(OPERATOR.id).map(messageText)).toContain("Already handled.");
    expect(messageText(current(h, alert!))).toContain(`Host Mode stopped for ${address}`);
    expect(buttonLabels(current(h, alert!))).toEqual([]);
    const record = await readAlert(h.store, alertIdOf(`host-over-cap:${address}:${today(h)}`));
    expect(record?.state).toBe("resolved");
    expect(record?.history.at(-1)).toMatchObject({ what: "cleared", note: "Host Mode stopped by olga" });

    // The next UTC day: started again, its cycles past the cap alert again, once.
    clock.offsetMs = DAY_MS;
    await startHost(h, address);
    await cycles(address, ["6.0000", "6.0000", "2.0000"]);
    // The first day's alert became the stop's outcome: the one shown is the new day's.
    const shown = alertsShown(h);
    expect(shown).toHaveLength(1);
    expect(shown[0]?.ts).not.toBe(alert?.ts);
    expect(messageText(shown[0])).toContain("12 TRX charged today, daily cap 10 TRX");
    expect(buttonLabels(shown[0])).toEqual(["Stop Host Mode", "Ack", "Snooze 1h", "Resolve"]);
  });
});

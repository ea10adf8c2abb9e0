import { afterEach, describe, expect, it } from "vitest";
import { alertIdOf, readAlert } from "../../../src/core/alerts/alert.js";
import { createNotificationRouter } from "../../../src/core/service-events/route.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import type { FakeMessage } from "../../fakes/telegram-api.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress } from "../../support/spend-harness.js";
import { GROUP_CHAT, OPERATOR, startTelegramHarness, type TelegramHarness, VIEWER } from "./harness.js";

/**
 * Host Mode past the daily cap on Telegram (issue 39, item 2): real grammY against the fake Bot
 * API, the sandbox over HTTP, Redis. Host Mode is started with its quote and Start button; its
 * cycle callbacks go through the notification router as the callback route hands them over, on a
 * clock the test moves to the next UTC day. OPS_DAILY_LIMIT_TRX=10.
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
  const h = await startTelegramHarness({
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
        order_id: `T-tg-${n}`,
        hash: `h${n}`,
        charged: amount,
      };
      await router.route(cycle, { deferrals: 0 });
    }
    await h.settle();
  };
  return { h, clock, cycles };
}

const messages = (h: TelegramHarness) => h.fake.messages(GROUP_CHAT);
const last = (h: TelegramHarness): FakeMessage => structuredClone(messages(h).at(-1)!);
const current = (h: TelegramHarness, m: FakeMessage) =>
  messages(h).find((x) => x.message_id === m.message_id);
const labels = (m: FakeMessage | undefined) =>
  (m?.replyMarkup?.inline_keyboard.flat() ?? []).map((b) => b.text);
const alertsShown = (h: TelegramHarness) => messages(h).filter((m) => PAST_CAP.test(m.text));
const toasts = (h: TelegramHarness) =>
  h.fake.calls("answerCallbackQuery").flatMap((c) => (c.params.text ? [String(c.params.text)] : []));
const today = (h: TelegramHarness) => new Date(h.deps.now()).toISOString().slice(0, 10);

async function startHost(h: TelegramHarness, address: string): Promise<void> {
  await h.say(`/host start ${address}`, { chat: GROUP_CHAT });
  await h.settle();
  await h.click(last(h), "Start Host Mode");
  await h.settle();
  expect(last(h).text).toMatch(/^Host Mode started\n/);
}

describe("telegram: Host Mode cycles past the daily cap", () => {
  it("raise one alert a day with Stop Host Mode; a viewer is refused; a double tap stops once", async () => {
    const { h, clock, cycles } = await setup();
    const address = freshAddress("tg-over-cap");
    await startHost(h, address);

    await cycles(address, ["4.0000", "2.0000", "2.0000"]);
    expect(alertsShown(h)).toEqual([]);
    await cycles(address, ["4.0000"]);
    expect(alertsShown(h)).toHaveLength(1);
    const alert = structuredClone(alertsShown(h)[0]!);
    expect(alert.text).toContain(address);
    expect(alert.text).toContain("12 TRX charged today, daily cap 10 TRX (OPS_DAILY_LIMIT_TRX)");
    expect(labels(alert)).toEqual(["Stop Host Mode", "Ack", "Snooze 1h", "Resolve"]);

    // More cycles the same day: posted, but no second alert.
    const before = messages(h).length;
    await cycles(address, ["2.0000", "4.0000"]);
    expect(messages(h).length).toBe(before + 2);
    expect(alertsShown(h)).toHaveLength(1);

    // A viewer's tap: refused in a toast, nothing asked of the service, the button stays.
    await h.click(alert, "Stop Host Mode", VIEWER);
    await h.settle();
    expect(toasts(h)).toContainEqual(expect.stringMatching(/needs the operator role; you are a viewer/));
    expect(h.sandbox.calls("host.stop")).toEqual([]);
    expect(labels(current(h, alert))).toContain("Stop Host Mode");

    // A double tap: one stop call; the alert is resolved and its message says Host Mode stopped.
    await Promise.all([
      h.click(alert, "Stop Host Mode", OPERATOR),
      h.click(alert, "Stop Host Mode", OPERATOR),
    ]);
    await h.settle();
    expect(h.sandbox.calls("host.stop")).toHaveLength(1);
    expect(h.sandbox.calls("host.stop")[0]?.body).toMatchObject({ address });
    expect(toasts(h)).toContain("Already handled.");
    expect(current(h, alert)?.text).toContain(`Host Mode stopped for ${address}`);
    expect(labels(current(h, alert))).toEqual([]);
    const record = await readAlert(h.store, alertIdOf(`host-over-cap:${address}:${today(h)}`));
    expect(record?.state).toBe("resolved");

    // The next UTC day: started again, its cycles past the cap alert again, once.
    clock.offsetMs = DAY_MS;
    await startHost(h, address);
    await cycles(address, ["6.0000", "6.0000", "2.0000"]);
    const shown = alertsShown(h);
    expect(shown).toHaveLength(1);
    expect(shown[0]?.message_id).not.toBe(alert.message_id);
    expect(labels(shown[0])).toEqual(["Stop Host Mode", "Ack", "Snooze 1h", "Resolve"]);
  });
});

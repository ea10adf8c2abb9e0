import { afterEach, describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import type { FakeMessage } from "../../fakes/telegram-api.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress } from "../../support/spend-harness.js";
import { GROUP_CHAT, OPERATOR, startTelegramHarness, type TelegramHarness, VIEWER } from "./harness.js";

/**
 * Two-person approval on Telegram: real grammY against the fake Bot API, the sandbox over HTTP, a
 * Redis store. OPERATOR asks; VIEWER is made an operator here and approves; READER is a viewer.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const APPROVER = VIEWER;
const READER: typeof VIEWER = { id: 7003, is_bot: false, first_name: "Nia", last_name: "Reader" };

async function setup(): Promise<{ h: TelegramHarness; clock: { advance(ms: number): void } }> {
  let offset = 0;
  const h = await startTelegramHarness({
    store: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }),
    operators: [`telegram:${OPERATOR.id}`, `telegram:${APPROVER.id}`],
    settings: { approvalTrx: "1", approvalTtlMs: 15 * 60_000 },
    now: () => Date.now() + offset,
  });
  const advance = (ms: number) => {
    offset += ms;
  };
  return { h, clock: { advance } };
}

const current = (h: TelegramHarness, message: FakeMessage): FakeMessage =>
  structuredClone(h.fake.messages(GROUP_CHAT).find((m) => m.message_id === message.message_id)!);
const labels = (m: FakeMessage) => (m.replyMarkup?.inline_keyboard.flat() ?? []).map((b) => b.text);
const toasts = (h: TelegramHarness) =>
  h.fake.calls("answerCallbackQuery").flatMap((c) => (c.params.text ? [String(c.params.text)] : []));

async function request(h: TelegramHarness): Promise<FakeMessage> {
  await h.say(`/energy ${freshAddress("tg-approval")} 65k`, { chat: GROUP_CHAT });
  await h.settle();
  const quote = structuredClone(h.fake.messages(GROUP_CHAT).at(-1)!);
  await h.click(quote, /^Confirm/);
  await h.settle();
  const asked = current(h, quote);
  expect(labels(asked)).toEqual(["Approve", "Reject"]);
  return asked;
}

describe("telegram: two-person approval", () => {
  it("Confirm asks for approval in the chat; another operator's Approve places the order", async () => {
    const { h } = await setup();
    const asked = await request(h);
    expect(asked.text).toMatch(/^Approval needed\n/);
    expect(asked.text).toContain("Asked by: @olga_ops");
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    await h.click(asked, "Approve", APPROVER);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    const done = current(h, asked);
    expect(done.replyMarkup).toBeUndefined();
    expect(done.text).toMatch(/^Energy delegated/);
    expect(done.text).toMatch(/approved by Vic/);
    const audit = await readAudit(h.store, 20);
    expect(audit.find((e) => e.verb === "approval approve")?.actor).toBe(`telegram:${APPROVER.id}`);
  });

  it("the requester's and a viewer's Approve are refused in a toast; the buttons stay", async () => {
    const { h } = await setup();
    const asked = await request(h);
    await h.click(asked, "Approve", OPERATOR);
    await h.click(asked, "Approve", READER);
    await h.settle();
    expect(toasts(h)).toEqual([
      expect.stringMatching(/another operator or admin must approve it/),
      expect.stringMatching(/needs the operator role; you are a viewer/),
    ]);
    expect(labels(current(h, asked))).toEqual(["Approve", "Reject"]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("Reject orders nothing", async () => {
    const { h } = await setup();
    const asked = await request(h);
    await h.click(asked, "Reject", APPROVER);
    await h.settle();
    expect(current(h, asked).text).toMatch(/^Rejected by Vic .* Nothing was ordered\./);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("an expired request says so and orders nothing", async () => {
    const { h, clock } = await setup();
    const asked = await request(h);
    clock.advance(16 * 60_000);
    await h.click(asked, "Approve", APPROVER);
    await h.settle();
    expect(current(h, asked).text).toMatch(/expired at .*nothing was ordered/);
    expect(current(h, asked).replyMarkup).toBeUndefined();
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("a price rise needs approving again; then one order", async () => {
    const { h } = await setup();
    const asked = await request(h);
    h.sandbox.prices.raiseEnergy(20);
    await h.click(asked, "Approve", APPROVER);
    await h.settle();
    const moved = current(h, asked);
    expect(moved.text).toMatch(/The price moved/);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    await h.click(moved, "Approve", APPROVER);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("two approve taps at once place one order", async () => {
    const { h } = await setup();
    const asked = await request(h);
    await Promise.all([h.click(asked, "Approve", APPROVER), h.click(asked, "Approve", APPROVER)]);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(toasts(h)).toContain("Already handled.");
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import type { FakeSlackMessage } from "../../fakes/slack-api.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress } from "../../support/spend-harness.js";
import {
  ADMIN,
  buttonLabels,
  CHANNEL,
  messageText,
  OPERATOR,
  type SlackHarness,
  startSlackHarness,
  VIEWER,
  waitFor,
} from "./harness.js";

/**
 * Two-person approval on Slack: real Bolt against the fake Web API, the sandbox over HTTP, a Redis
 * store. OPS_APPROVAL_TRX is 1 TRX, so every 65k energy quote (about 3 TRX) needs a second person.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const SECOND = { id: "U0SECOND", name: "sam" };

async function setup(): Promise<{ h: SlackHarness; clock: { advance(ms: number): void } }> {
  let offset = 0;
  const h = await startSlackHarness({
    store: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }),
    settings: {
      approvalTrx: "1",
      approvalTtlMs: 15 * 60_000,
      operators: [`slack:${OPERATOR.id}`, `slack:${SECOND.id}`],
    },
    now: () => Date.now() + offset,
  });
  const advance = (ms: number) => {
    offset += ms;
  };
  return { h, clock: { advance } };
}

const current = (h: SlackHarness, message: FakeSlackMessage) =>
  structuredClone(h.fake.channelMessages(CHANNEL).find((m) => m.ts === message.ts));

/** Quote, then the requester's Confirm: the quote message becomes the approval request. */
async function request(h: SlackHarness): Promise<FakeSlackMessage> {
  await h.command(`/energy ${freshAddress("slack-approval")} 65k`);
  await h.settle();
  const quote = structuredClone(h.fake.channelMessages(CHANNEL).at(-1)!);
  await h.click(quote, /^Confirm/);
  await h.settle();
  const asked = current(h, quote)!;
  expect(buttonLabels(asked)).toEqual(["Approve", "Reject"]);
  return asked;
}

describe("slack: two-person approval", () => {
  it("Confirm asks for approval in the channel; another operator's Approve places the order", async () => {
    const { h } = await setup();
    const asked = await request(h);
    expect(messageText(asked)).toContain("Approval needed");
    expect(messageText(asked)).toContain("Asked by");
    expect(h.sandbox.calls("order5m.create")).toEqual([]);

    await h.click(asked, "Approve", { user: SECOND });
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    const done = current(h, asked);
    expect(buttonLabels(done)).toEqual([]);
    expect(messageText(done)).toMatch(/approved by sam/);
    const audit = await readAudit(h.store, 20);
    expect(audit.find((e) => e.verb === "approval approve")).toMatchObject({
      actor: `slack:${SECOND.id}`,
      result: "ok",
      orderIds: [h.sandbox.energy.orders()[0]!.orderId],
    });
  });

  it("the requester's Approve is refused privately and leaves the buttons for others; a viewer's too", async () => {
    const { h } = await setup();
    const asked = await request(h);
    await h.click(asked, "Approve", { user: OPERATOR });
    await h.click(asked, "Approve", { user: VIEWER });
    await h.settle();
    expect(h.fake.ephemerals(OPERATOR.id).map(messageText)).toEqual([
      expect.stringMatching(/another operator or admin must approve it/),
    ]);
    expect(h.fake.ephemerals(VIEWER.id).map(messageText)).toEqual([
      expect.stringMatching(/needs the operator role; you are a viewer/),
    ]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(buttonLabels(current(h, asked))).toEqual(["Approve", "Reject"]);
    await h.click(asked, "Approve", { user: ADMIN });
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("Reject closes the request and orders nothing; a later Approve is already handled", async () => {
    const { h } = await setup();
    const asked = await request(h);
    await h.click(asked, "Reject", { user: SECOND });
    await h.settle();
    expect(messageText(current(h, asked))).toMatch(/Rejected by sam .* Nothing was ordered/);
    await h.click(asked, "Approve", { user: ADMIN });
    await h.settle();
    expect(h.fake.ephemerals(ADMIN.id).map(messageText)).toEqual(["Already handled."]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("after OPS_APPROVAL_TTL_MIN the buttons stop working and the message says it expired", async () => {
    const { h, clock } = await setup();
    const asked = await request(h);
    clock.advance(15 * 60_000 + 1_000);
    await h.click(asked, "Approve", { user: SECOND });
    await h.settle();
    const after = current(h, asked);
    expect(buttonLabels(after)).toEqual([]);
    expect(messageText(after)).toMatch(/expired at .*nothing was ordered/);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("when the price list rises, Approve shows the new quote and needs approving again", async () => {
    const { h } = await setup();
    const asked = await request(h);
    h.sandbox.prices.raiseEnergy(20);
    await h.click(asked, "Approve", { user: SECOND });
    await h.settle();
    const moved = current(h, asked)!;
    expect(messageText(moved)).toMatch(/The price moved/);
    expect(buttonLabels(moved)).toEqual(["Approve", "Reject"]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    await h.click(moved, "Approve", { user: SECOND });
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("two approvers clicking at once place exactly one order", async () => {
    const { h } = await setup();
    const asked = await request(h);
    const clicks = await Promise.all([
      h.click(asked, "Approve", { user: SECOND, actionTs: "1700000003.000100" }),
      h.click(asked, "Approve", { user: ADMIN, actionTs: "1700000003.000200" }),
    ]);
    expect(clicks.map((r) => r.status)).toEqual([200, 200]);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    const told = () => [SECOND, ADMIN].flatMap((u) => h.fake.ephemerals(u.id)).map(messageText);
    await waitFor(() => told().length > 0, "the losing click's answer");
    expect(told()).toEqual(["Already handled."]);
  });
});

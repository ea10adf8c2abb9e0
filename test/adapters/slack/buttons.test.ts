import { describe, expect, it } from "vitest";
import type { FakeSlackMessage } from "../../fakes/slack-api.js";
import { freshAddress, raisedBy } from "../../support/spend-harness.js";
import {
  buttonLabels,
  CHANNEL,
  findButton,
  messageText,
  OPERATOR,
  type SlackHarness,
  startSlackHarness,
  VIEWER,
  waitFor,
} from "./harness.js";
import { clickBody } from "./payloads.js";

const EVM = "0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae";

async function quoteEnergy(h: SlackHarness, address = freshAddress("slack")): Promise<FakeSlackMessage> {
  await h.command(`/energy ${address} 65k`);
  await h.settle();
  const quote = h.fake.channelMessages(CHANNEL).at(-1);
  if (!quote) throw new Error("no quote was posted");
  return structuredClone(quote);
}

/** The channel's copy of `message` as it is now (after edits). */
const current = (h: SlackHarness, message: FakeSlackMessage) =>
  h.fake.channelMessages(CHANNEL).find((m) => m.ts === message.ts);

describe("slack buttons: energy quote → Confirm", () => {
  it("offers Confirm (primary) and Cancel; Confirm places one order and replaces the quote in place", async () => {
    const h = await startSlackHarness();
    const quote = await quoteEnergy(h);
    expect(messageText(quote)).toContain("Energy quote");
    expect(buttonLabels(quote)).toEqual([expect.stringMatching(/^Confirm \d/), "Cancel"]);
    expect(findButton(quote, /^Confirm/).style).toBe("primary");
    expect(h.sandbox.calls("order5m.create")).toEqual([]);

    const response = await h.click(quote, /^Confirm/);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    await h.settle();

    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    const replaced = h.fake.calls("response_url").at(-1)?.params;
    expect(replaced?.replace_original).toBe(true);
    const after = current(h, quote);
    expect(after?.edits).toBe(1);
    expect(buttonLabels(after)).toEqual([]);
    expect(messageText(after)).toMatch(new RegExp(`^\\*Confirm [^*]+\\* by <@${OPERATOR.id}>\\n`));
    expect(messageText(after)).not.toBe(messageText(quote));
    // Only the one message: the result replaced the quote instead of adding a message.
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
  });

  it("a price rise since the quote orders nothing: the new quote with fresh buttons takes the quote's place", async () => {
    const h = await startSlackHarness();
    const quote = await quoteEnergy(h);
    const [confirm] = buttonLabels(quote);
    expect(buttonLabels(quote)).toEqual([expect.stringMatching(/^Confirm [\d.]+ TRX$/), "Cancel"]);
    // 10 SUN more per energy, on 65,000 energy: 0.65 TRX.
    const price = raisedBy(confirm ?? "", "0.65");
    h.sandbox.prices.raiseEnergy(10);
    await h.click(quote, /^Confirm/);
    await h.settle();

    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    const moved = current(h, quote);
    expect(messageText(moved)).toContain(`The price rose by 0.65 TRX (${price.before} → ${price.after} TRX)`);
    expect(messageText(moved)).toContain("Nothing was ordered");
    expect(buttonLabels(moved)).toEqual([`Confirm ${price.after} TRX`, "Cancel"]);
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);

    // The fresh Confirm, pressed where it is shown, orders at the new price.
    await h.click(structuredClone(moved) as FakeSlackMessage, /^Confirm/);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(messageText(current(h, quote))).toContain(
      `*Paid*\n${price.after} TRX (quoted ${price.after} TRX)`,
    );
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
  });

  it("a second click on the spent buttons says 'Already handled.' to that user only, and orders nothing", async () => {
    const h = await startSlackHarness();
    const quote = await quoteEnergy(h);
    await h.click(quote, /^Confirm/);
    await h.settle();
    await h.click(quote, /^Confirm/);
    await h.click(quote, "Cancel");
    await h.settle();

    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(h.fake.ephemerals(OPERATOR.id).map(messageText)).toEqual(["Already handled.", "Already handled."]);
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
    expect(current(h, quote)?.edits).toBe(1);
  });

  it("Cancel replaces the quote with who cancelled, and orders nothing", async () => {
    const h = await startSlackHarness();
    const quote = await quoteEnergy(h);
    await h.click(quote, "Cancel");
    await h.settle();

    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    const after = current(h, quote);
    expect(buttonLabels(after)).toEqual([]);
    expect(messageText(after)).toBe(`*Cancel* by <@${OPERATOR.id}>\nCancelled by ${OPERATOR.name}.`);
  });

  it("a viewer's Confirm is refused privately; the buttons stay for an operator", async () => {
    const h = await startSlackHarness();
    const quote = await quoteEnergy(h);
    await h.click(quote, /^Confirm/, { user: VIEWER });
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(h.fake.ephemerals(VIEWER.id).map(messageText)).toEqual([
      expect.stringContaining("needs the operator role; you are a viewer"),
    ]);
    expect(current(h, quote)?.edits).toBe(0);
    expect(buttonLabels(current(h, quote))).toHaveLength(2);

    await h.click(quote, /^Confirm/);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("a click Slack re-sends (X-Slack-Retry-Num) runs once and answers once", async () => {
    const h = await startSlackHarness();
    const quote = await quoteEnergy(h);
    const responseUrl = h.fake.responseUrl({ channel: CHANNEL, user: OPERATOR.id, messageTs: quote.ts });
    const body = clickBody(quote, /^Confirm/, { user: OPERATOR, responseUrl, actionTs: "1700000000.123456" });
    expect((await h.post(body)).status).toBe(200);
    expect(
      (await h.post(body, { headers: { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" } }))
        .status,
    ).toBe(200);
    expect((await h.post(body, { headers: { "x-slack-retry-num": "2" } })).status).toBe(200);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(h.fake.calls("response_url").filter((c) => c.params.replace_original === true)).toHaveLength(1);
    // A retry is dropped before the core: not even an "Already handled." line.
    expect(h.fake.ephemerals(OPERATOR.id)).toEqual([]);
  });

  it("the message is updated with chat.update when the click's response_url fails", async () => {
    const h = await startSlackHarness();
    const quote = await quoteEnergy(h);
    h.fake.fail("response_url", { kind: "500" });
    await h.click(quote, "Cancel");
    await h.settle();
    expect(h.fake.calls("chat.update").map((c) => [c.params.channel, c.params.ts, c.status])).toEqual([
      [CHANNEL, quote.ts, 200],
    ]);
    expect(buttonLabels(current(h, quote))).toEqual([]);
    expect(messageText(current(h, quote))).toContain("Cancelled by");
  });
});

describe("slack buttons: screen on an ambiguous network", () => {
  it("asks with a button per network; a click screens on that network and replaces the question", async () => {
    const h = await startSlackHarness();
    await h.command(`/screen ${EVM}`);
    await h.settle();
    const question = structuredClone(h.fake.channelMessages(CHANNEL).at(-1));
    if (!question) throw new Error("no question was posted");
    expect(buttonLabels(question).slice(0, 3)).toEqual(["eth", "bsc", "arb"]);
    expect(h.sandbox.calls("screening.create")).toEqual([]);

    await h.click(question, "bsc");
    await h.settle();
    expect(h.sandbox.calls("screening.create").map((c) => (c.body as { network: string }).network)).toEqual([
      "bsc",
    ]);
    const after = current(h, question);
    expect(buttonLabels(after)).toEqual([]);
    expect(messageText(after)).toContain(`*bsc* by <@${OPERATOR.id}>`);
    expect(messageText(after)).toContain("bsc");
  });
});

describe("slack buttons: a confirmed outcome is posted once", () => {
  it("the recovery job finds the answered Confirm delivered and posts nothing more", async () => {
    const h = await startSlackHarness({ settings: { intents: { recoverAfterMs: 300, leaseMs: 300 } } });
    const quote = await quoteEnergy(h);
    await h.click(quote, /^Confirm/);
    await h.settle();
    // Past the recovery job's time: it must find the outcome delivered.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
    expect(current(h, quote)?.edits).toBe(1);
  });
});

describe("slack buttons: a Confirm handed to the job queue (too many running at once)", () => {
  it("answers at once in place of the quote, then the outcome takes that message's place", async () => {
    // No room for a run beside the click: every Confirm goes to the queue.
    const h = await startSlackHarness({
      settings: { intents: { recoverAfterMs: 60_000, leaseMs: 300, maxLocalRuns: 0 } },
    });
    const quote = await quoteEnergy(h);
    await h.click(quote, /^Confirm/);
    await waitFor(() => /Energy delegated/.test(messageText(current(h, quote))), "the outcome in the quote");
    await h.settle();
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
    expect(buttonLabels(current(h, quote))).toEqual([]);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    // First the click's answer in the quote's place (the quote via its response_url, the last
    // of them), then the outcome edited into that same message.
    const answer = h.fake.calls("response_url").at(-1)?.params;
    expect(answer?.replace_original).toBe(true);
    expect(JSON.stringify(answer?.blocks)).toContain("this one is queued");
    const updates = h.fake.calls("chat.update").map((c) => [c.params.ts, c.status]);
    expect(updates).toEqual([[quote.ts, 200]]);
    expect(current(h, quote)?.edits).toBe(2);
  });
});

describe("slack buttons: an outcome posted by the recovery job replaces the quote", () => {
  /** The click's run stops before its reply (as a dead process would); the recovery job posts it. */
  const hangBeforeReply = (h: SlackHarness) => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.deps.faults = (point) => (point === "before-reply" ? held : Promise.resolve());
    return release;
  };

  it("with chat.update on the quote's message: one message, the outcome, no buttons left", async () => {
    const h = await startSlackHarness({ settings: { intents: { recoverAfterMs: 200, leaseMs: 200 } } });
    const quote = await quoteEnergy(h);
    const release = hangBeforeReply(h);
    await h.click(quote, /^Confirm/);
    await waitFor(() => /Energy delegated/.test(messageText(current(h, quote))), "the outcome in the quote");
    expect(h.fake.calls("chat.update").map((c) => [c.params.channel, c.params.ts, c.status])).toEqual([
      [CHANNEL, quote.ts, 200],
    ]);
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
    expect(buttonLabels(current(h, quote))).toEqual([]);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    // The run that was "dead" answers after all: the same message again, never a second one.
    release();
    await h.settle();
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
    expect(messageText(current(h, quote))).toMatch(/Energy delegated/);
  });

  it("a quote that was deleted meanwhile: the outcome is posted as a new message", async () => {
    const h = await startSlackHarness({ settings: { intents: { recoverAfterMs: 200, leaseMs: 200 } } });
    const quote = await quoteEnergy(h);
    const release = hangBeforeReply(h);
    await h.click(quote, /^Confirm/);
    h.fake.deleteMessage(CHANNEL, quote.ts);
    const posted = await waitFor(
      () => h.fake.channelMessages(CHANNEL).find((m) => /Energy delegated/.test(messageText(m))),
      "the outcome as a new message",
    );
    expect(posted.ts).not.toBe(quote.ts);
    // The edit was tried first, and refused: message_not_found.
    expect(h.fake.calls("chat.update").map((c) => c.params.ts)).toEqual([quote.ts]);
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
    release();
  });
});

describe("slack buttons: an answer Slack refused now is queued in place of the quote", () => {
  it("response_url and chat.update fail once: the queued outcome edits the quote, no second message", async () => {
    const h = await startSlackHarness();
    const quote = await quoteEnergy(h);
    h.fake.fail("response_url", { kind: "500" });
    h.fake.fail("chat.update", { kind: "500" });
    await h.click(quote, /^Confirm/);
    await waitFor(() => /Energy delegated/.test(messageText(current(h, quote))), "the outcome in the quote");
    await h.settle();
    expect(h.fake.calls("chat.update").map((c) => [c.params.ts, c.status])).toEqual([
      [quote.ts, 500],
      [quote.ts, 200],
    ]);
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
    expect(buttonLabels(current(h, quote))).toEqual([]);
  });
});

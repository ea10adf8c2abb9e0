import { describe, expect, it } from "vitest";
import { CALLBACK_DATA_MAX_BYTES } from "../../../adapters/telegram/render/html.js";
import type { FakeMessage } from "../../fakes/telegram-api.js";
import { freshAddress, raisedBy } from "../../support/spend-harness.js";
import {
  buttonData,
  GROUP_CHAT,
  OPERATOR,
  startTelegramHarness,
  type TelegramHarness,
  VIEWER,
} from "./harness.js";

const EVM = "0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae";

/** The quote as posted (a copy: the fake edits its own message in place; the test keeps the buttons). */
async function quoteEnergy(h: TelegramHarness, address = freshAddress("tg")): Promise<FakeMessage> {
  await h.say(`/energy ${address} 65k`, { chat: GROUP_CHAT });
  await h.settle();
  const quote = h.fake.messages(GROUP_CHAT).at(-1);
  if (!quote) throw new Error("no quote was posted");
  return structuredClone(quote);
}

const answers = (h: TelegramHarness) => h.fake.calls("answerCallbackQuery").map((c) => c.params);

describe("telegram buttons: energy quote → Confirm", () => {
  it("offers Confirm/Cancel with short callback_data; Confirm places one order and replaces the quote", async () => {
    const h = await startTelegramHarness();
    const address = freshAddress("tg");
    const quote = await quoteEnergy(h, address);
    expect(quote.text).toMatch(/^Energy quote\n/);
    expect(quote.text).toContain(`Address: ${address}`);
    const keyboard = quote.replyMarkup?.inline_keyboard.flat() ?? [];
    expect(keyboard.map((b) => b.text)).toEqual([expect.stringMatching(/^Confirm \d/), "Cancel"]);
    for (const b of keyboard)
      expect(Buffer.byteLength(b.callback_data ?? "")).toBeLessThanOrEqual(CALLBACK_DATA_MAX_BYTES);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);

    await h.click(quote, /^Confirm/);
    await h.settle();

    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(answers(h)).toHaveLength(1);
    expect(answers(h)[0]?.text).toBeUndefined();
    const edits = h.fake.calls("editMessageText");
    expect(edits).toHaveLength(1);
    expect(edits[0]?.params).toMatchObject({
      chat_id: GROUP_CHAT,
      message_id: quote.message_id,
      parse_mode: "HTML",
    });
    const [after] = h.fake.messages(GROUP_CHAT).filter((m) => m.message_id === quote.message_id);
    expect(after?.replyMarkup).toBeUndefined();
    expect(after?.text).toMatch(/^Energy delegated\nOrder: 5M/);
    expect(h.sandbox.calls("order5m.create")[0]?.body).toMatchObject({ receiveAddress: address });
  });

  it("a price rise since the quote orders nothing: the new quote with fresh buttons replaces the quote", async () => {
    const h = await startTelegramHarness();
    const quote = await quoteEnergy(h);
    const confirm = quote.replyMarkup?.inline_keyboard.flat().find((b) => b.text.startsWith("Confirm"));
    // 10 SUN more per energy, on 65,000 energy: 0.65 TRX.
    const price = raisedBy(confirm?.text ?? "", "0.65");
    h.sandbox.prices.raiseEnergy(10);
    await h.click(quote, /^Confirm/);
    await h.settle();

    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    const [moved] = h.fake.messages(GROUP_CHAT).filter((m) => m.message_id === quote.message_id);
    expect(moved?.text).toContain(`The price rose by 0.65 TRX (${price.before} → ${price.after} TRX)`);
    const keyboard = moved?.replyMarkup?.inline_keyboard.flat() ?? [];
    expect(keyboard.map((b) => b.text)).toEqual([`Confirm ${price.after} TRX`, "Cancel"]);
    expect(h.fake.calls("editMessageText")[0]?.params).toMatchObject({ message_id: quote.message_id });

    await h.click(structuredClone(moved!), /^Confirm/);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    const [after] = h.fake.messages(GROUP_CHAT).filter((m) => m.message_id === quote.message_id);
    expect(after?.text).toMatch(/^Energy delegated\nOrder: 5M/);
    expect(after?.text).toContain(`Paid: ${price.after} TRX`);
  });

  it("a second click on the spent button is answered 'Already handled.' and orders nothing", async () => {
    const h = await startTelegramHarness();
    const quote = await quoteEnergy(h);
    await h.click(quote, /^Confirm/);
    await h.settle();
    await h.click(quote, /^Confirm/);
    await h.click(quote, "Cancel");
    await h.settle();

    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(answers(h)).toEqual([
      { callback_query_id: expect.any(String) },
      { callback_query_id: expect.any(String), text: "Already handled.", show_alert: true },
      { callback_query_id: expect.any(String), text: "Already handled.", show_alert: true },
    ]);
    expect(h.fake.calls("editMessageText")).toHaveLength(1);
  });

  it("Cancel replaces the quote with who cancelled (their name escaped) and orders nothing", async () => {
    const h = await startTelegramHarness({ operators: [`telegram:${OPERATOR.id}`, `telegram:${VIEWER.id}`] });
    const quote = await quoteEnergy(h);
    await h.click(quote, "Cancel", VIEWER);
    await h.settle();

    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(answers(h)).toHaveLength(1);
    const [after] = h.fake.messages(GROUP_CHAT).filter((m) => m.message_id === quote.message_id);
    expect(after?.text).toBe("Cancelled by Vic <Viewer> & Co.");
    expect(after?.html).toBe("Cancelled by Vic &lt;Viewer&gt; &amp; Co.");
    expect(after?.replyMarkup).toBeUndefined();
  });

  it("a viewer's Confirm is refused in a toast; the button stays for an operator", async () => {
    const h = await startTelegramHarness();
    const quote = await quoteEnergy(h);
    await h.click(quote, /^Confirm/, VIEWER);
    await h.settle();
    expect(answers(h)).toEqual([
      {
        callback_query_id: expect.any(String),
        text: `This button needs the operator role; you are a viewer. Ask an admin to add telegram:${VIEWER.id} to OPS_OPERATORS.`,
        show_alert: true,
      },
    ]);
    expect(h.fake.calls("editMessageText")).toEqual([]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);

    await h.click(quote, /^Confirm/, OPERATOR);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("a slow action has its spinner answered first; the result replaces the message when done", async () => {
    const h = await startTelegramHarness({ answerWithinMs: 50 });
    const quote = await quoteEnergy(h);
    h.sandbox.inject("order5m.create", { kind: "delay", ms: 300 });
    await h.click(quote, /^Confirm/);
    await h.fake.waitFor(() => answers(h).length === 1);
    expect(h.fake.calls("editMessageText")).toEqual([]);
    await h.settle();
    expect(h.fake.calls("editMessageText")).toHaveLength(1);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });
});

describe("telegram buttons: screening network choice", () => {
  it("an address valid on several networks asks with buttons; the choice screens on that network", async () => {
    const h = await startTelegramHarness();
    await h.say(`/screen ${EVM}`, { chat: GROUP_CHAT });
    await h.settle();
    const question = h.fake.messages(GROUP_CHAT).at(-1);
    if (!question) throw new Error("no question posted");
    const labels = question.replyMarkup?.inline_keyboard.flat().map((b) => b.text) ?? [];
    expect(labels.length).toBeGreaterThan(1);
    expect(h.sandbox.calls("screening.create")).toEqual([]);

    const network = labels.find((l) => l !== "Cancel") ?? "";
    expect(buttonData(question, network)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    await h.click(question, network);
    await h.settle();
    const creates = h.sandbox.calls("screening.create");
    expect(creates).toHaveLength(1);
    const [after] = h.fake.messages(GROUP_CHAT).filter((m) => m.message_id === question.message_id);
    expect(after?.replyMarkup).toBeUndefined();
    expect(after?.text).toMatch(/^Screening/);
  });
});

describe("telegram buttons: an outcome posted by the recovery job replaces the quote", () => {
  /** The click's run stops before its reply (as a dead process would); the recovery job posts it. */
  const hangBeforeReply = (h: TelegramHarness) => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.deps.faults = (point) => (point === "before-reply" ? held : Promise.resolve());
    return release;
  };
  const settings = { intents: { recoverAfterMs: 200, leaseMs: 200 } };

  it("with editMessageText on the quote: one message, the outcome, no keyboard", async () => {
    const h = await startTelegramHarness({ settings, timeScale: 1, answerWithinMs: 50 });
    const quote = await quoteEnergy(h);
    const release = hangBeforeReply(h);
    await h.click(quote, /^Confirm/);
    await h.fake.waitFor(() =>
      /^Energy delegated/.test(
        h.fake.messages(GROUP_CHAT).find((m) => m.message_id === quote.message_id)?.text ?? "",
      ),
    );
    expect(h.fake.calls("editMessageText").map((c) => c.params.message_id)).toEqual([quote.message_id]);
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(1);
    const [after] = h.fake.messages(GROUP_CHAT).filter((m) => m.message_id === quote.message_id);
    expect(after?.replyMarkup).toBeUndefined();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    // The run that was "dead" answers after all: the same message again, never a second one.
    release();
    await h.settle();
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(1);
    expect(h.fake.calls("sendMessage")).toHaveLength(1);
  });

  it("an edit Telegram refuses (too old, deleted): the outcome is posted as a new message", async () => {
    const h = await startTelegramHarness({ settings, timeScale: 1, answerWithinMs: 50 });
    const quote = await quoteEnergy(h);
    const release = hangBeforeReply(h);
    h.fake.fail("editMessageText", {
      kind: "error",
      code: 400,
      description: "Bad Request: message can't be edited",
    });
    await h.click(quote, /^Confirm/);
    await h.fake.waitFor(() =>
      h.fake
        .messages(GROUP_CHAT)
        .some((m) => m.message_id !== quote.message_id && /^Energy delegated/.test(m.text)),
    );
    expect(h.fake.calls("editMessageText").map((c) => c.params.message_id)).toEqual([quote.message_id]);
    release();
  });
});

describe("telegram buttons: a Confirm handed to the job queue (too many running at once)", () => {
  it("the click's answer takes the quote's place, then the outcome edits that same message", async () => {
    const settings = { intents: { recoverAfterMs: 60_000, leaseMs: 300, maxLocalRuns: 0 } };
    const h = await startTelegramHarness({ settings, timeScale: 1, answerWithinMs: 50 });
    const quote = await quoteEnergy(h);
    await h.click(quote, /^Confirm/);
    await h.fake.waitFor(() =>
      /^Energy delegated/.test(
        h.fake.messages(GROUP_CHAT).find((m) => m.message_id === quote.message_id)?.text ?? "",
      ),
    );
    await h.settle();
    const edits = h.fake.calls("editMessageText");
    expect(edits.map((c) => c.params.message_id)).toEqual([quote.message_id, quote.message_id]);
    expect(String(edits[0]?.params.text)).toContain("this one is queued");
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(1);
    expect(h.fake.messages(GROUP_CHAT)[0]?.replyMarkup).toBeUndefined();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });
});

describe("telegram buttons: a result Telegram refused now is queued in place of the quote", () => {
  it("editMessageText fails once (500): the queued result edits the quote, no second message", async () => {
    const h = await startTelegramHarness();
    const quote = await quoteEnergy(h);
    h.fake.fail("editMessageText", { kind: "500" });
    await h.click(quote, /^Confirm/);
    await h.settle();
    await h.fake.waitFor(() =>
      /^Energy delegated/.test(
        h.fake.messages(GROUP_CHAT).find((m) => m.message_id === quote.message_id)?.text ?? "",
      ),
    );
    expect(h.fake.calls("editMessageText").map((c) => c.params.message_id)).toEqual([
      quote.message_id,
      quote.message_id,
    ]);
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(1);
  });
});

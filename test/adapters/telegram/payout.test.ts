import { describe, expect, it } from "vitest";
import { TELEGRAM_TEXT_LIMIT } from "../../../adapters/telegram/split.js";
import type { FakeMessage } from "../../fakes/telegram-api.js";
import { freshAddress } from "../../support/spend-harness.js";
import { GROUP_CHAT, OPERATOR, startTelegramHarness, type TelegramHarness, VIEWER } from "./harness.js";
import { documentUpdate } from "./updates.js";

/**
 * Payout runs on Telegram against the sandbox: `/energy` with one row per line, a CSV document
 * with the caption `/energy` (getFile, then the file URL under the Bot API root), the quote, one
 * order at Confirm, the quote's message edited (editMessageText) with the progress and the
 * outcome, the outcome CSV as a reply to it (sendDocument), every message within 4096 characters.
 */
const addresses = (n: number) => Array.from({ length: n }, () => freshAddress("tg-payout"));

async function lastQuote(h: TelegramHarness): Promise<FakeMessage> {
  await h.settle();
  const quote = h.fake.messages(GROUP_CHAT).at(-1);
  if (!quote) throw new Error("no quote was posted");
  return structuredClone(quote);
}

/** The message a send answers: `reply_parameters` (a JSON field in a multipart upload) or `reply_to_message_id`. */
function replyTarget(params: Record<string, unknown>): number | undefined {
  const raw = params.reply_parameters;
  const parameters = (typeof raw === "string" ? JSON.parse(raw) : raw) as
    | { message_id?: unknown }
    | undefined;
  const id = parameters?.message_id ?? params.reply_to_message_id;
  return id === undefined ? undefined : Number(id);
}

const current = (h: TelegramHarness, message: FakeMessage) =>
  h.fake.messages(GROUP_CHAT).find((m) => m.message_id === message.message_id);

describe("telegram: payout runs", () => {
  it("the quote of /energy ⏎ <a> 70k ⏎ <b> 80k names what each address gets; /energy 65k <one address> is one order's quote", async () => {
    const h = await startTelegramHarness();
    const [a, b, c] = addresses(3);
    await h.say(`/energy\n${a} 70k\n${b} 80k`, { chat: GROUP_CHAT });
    const quote = await lastQuote(h);
    expect(quote.text).toContain("150,000 in all");
    expect(quote.text).toContain(`Each address:\n${a} 70,000\n${b} 80,000`);

    await h.say(`/energy 65k ${c}`, { chat: GROUP_CHAT });
    const single = await lastQuote(h);
    expect(single.text).toMatch(/^Energy quote/);
    expect(single.text).not.toContain("payout run takes");
    expect(single.replyMarkup).toBeDefined();
  });

  it("/energy with one row per line → quote → Confirm → one order; the quote is edited with progress, then the outcome", async () => {
    const h = await startTelegramHarness();
    const list = addresses(4);
    await h.say(`/energy bandwidth off\n${list.map((a) => `${a},65000`).join("\n")}`, { chat: GROUP_CHAT });
    const quote = await lastQuote(h);
    expect(quote.text).toMatch(/^Payout run quote\n/);
    expect(quote.text).toContain("Addresses: 4 to order");
    expect(quote.text).toContain("Options: bandwidth off");
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(1);

    await h.click(quote, /^Confirm/);
    await h.fake.waitFor(() => current(h, quote)?.text.startsWith("Payout run delivered"), 10_000);
    const calls = h.sandbox.calls("orchestrator.create");
    expect(calls).toHaveLength(1);
    expect((calls[0]?.body as { defaults?: unknown } | undefined)?.defaults).toEqual({ bandwidth: false });
    const edits = h.fake.calls("editMessageText").filter((c) => c.params.message_id === quote.message_id);
    expect(edits.length).toBeGreaterThanOrEqual(2);
    expect(current(h, quote)?.replyMarkup).toBeUndefined();
    for (const address of list) expect(current(h, quote)?.text).toContain(address);
  });

  it("a CSV document with the caption /energy: getFile and the file URL; 100 addresses; outcome CSV posted as a reply to the run's message", async () => {
    const h = await startTelegramHarness();
    const list = addresses(100);
    const bytes = Buffer.from(`${list.map((a) => `${a};61000`).join("\n")}\n`);
    const document = {
      ...h.fake.userFile("payouts.csv", bytes),
      file_name: "payouts.csv",
      mime_type: "text/csv",
    };
    await h.postUpdate(documentUpdate("/energy", document, GROUP_CHAT, OPERATOR));
    const quote = await lastQuote(h);
    expect(h.fake.calls("getFile")).toHaveLength(1);
    expect(h.fake.calls("file")).toHaveLength(1);
    expect(quote.text).toContain("Addresses: 100 to order");
    expect(quote.text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);

    await h.click(quote, /^Confirm/);
    await h.fake.waitFor(() => current(h, quote)?.text.startsWith("Payout run delivered"), 20_000);
    expect(current(h, quote)?.text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    const sent = await h.fake.waitFor(() => h.fake.calls("sendDocument").at(-1), 10_000);
    // The outcome CSV goes to the run's chat as a reply to the run's message, like its other
    // notices (posted once, after the outcome edit).
    expect(sent.params.chat_id).toBe(String(GROUP_CHAT));
    expect(replyTarget(sent.params)).toBe(quote.message_id);
    expect(h.fake.calls("sendDocument")).toHaveLength(1);
    const content = sent.files[0]?.bytes.toString("utf8") ?? "";
    expect(content.trim().split("\n")).toHaveLength(101);
    for (const m of h.fake.messages(GROUP_CHAT))
      expect(m.text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
  }, 30_000);

  it("a viewer's document is refused; a document without a command caption is ignored", async () => {
    const h = await startTelegramHarness();
    const document = { ...h.fake.userFile("p.csv", Buffer.from("x")), file_name: "p.csv" };
    await h.postUpdate(documentUpdate("/energy", document, GROUP_CHAT, VIEWER));
    await h.postUpdate(documentUpdate("the payouts for today", document, GROUP_CHAT, OPERATOR));
    await h.settle();
    const texts = h.fake.messages(GROUP_CHAT).map((m) => m.text);
    expect(texts).toEqual([expect.stringMatching(/operator/)]);
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });
});

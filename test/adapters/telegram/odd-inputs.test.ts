import { describe, expect, it } from "vitest";
import { refusalLine } from "../../../adapters/telegram/bot/handlers.js";
import { MAX_REPLY_PARTS, TELEGRAM_TEXT_LIMIT } from "../../../adapters/telegram/split.js";
import type { CommandDefinition } from "../../../src/core/command.js";
import { helpCommand } from "../../../src/core/help.js";
import { publicReply, text } from "../../../src/core/reply.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import type { FakeMessage } from "../../fakes/telegram-api.js";
import {
  GROUP_CHAT,
  OPERATOR,
  PRIVATE_CHAT,
  replyUpdate,
  STRANGER_CHAT,
  startTelegramHarness,
  type TelegramHarness,
} from "./harness.js";

/** Issue 23 on Telegram: prompts, bidi characters, strangers' floods, invisible characters. */
const ADDRESS = tronAddress("odd-inputs-telegram");
const BIDI = /[\u202a-\u202e\u2066-\u2069]/u;

async function replyTo(h: TelegramHarness, asked: FakeMessage, text: string) {
  await h.postUpdate(replyUpdate(asked, text, OPERATOR, h.fake.me));
  await h.settle();
}

describe("telegram: a reply prompt survives an invalid answer", () => {
  it("/energy → prompt; a too-small amount is refused; the next answer to the same prompt is quoted", async () => {
    const h = await startTelegramHarness();
    await h.say("/energy", { chat: GROUP_CHAT });
    await h.settle();
    const [prompt] = h.fake.messages(GROUP_CHAT);
    expect(prompt?.forceReply).toEqual({ selective: true });

    await replyTo(h, prompt!, `${ADDRESS} 1000`);
    expect(h.fake.messages(GROUP_CHAT)[1]?.text).toMatch(/below the minimum/);

    await replyTo(h, prompt!, `${ADDRESS} 65k`);
    const quote = h.fake.messages(GROUP_CHAT)[2];
    expect(quote?.text).toContain(ADDRESS);
    expect(quote?.replyMarkup?.inline_keyboard.flat().map((b) => b.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/Confirm/)]),
    );

    // A good answer closes it: a third answer is conversation, not arguments.
    await replyTo(h, prompt!, `${ADDRESS} 70k`);
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(3);
  });
});

describe("telegram: bidi overrides never reach the chat", () => {
  it("a watch label with U+202E is shown without it", async () => {
    const h = await startTelegramHarness();
    await h.say(`/watch add ${ADDRESS} abc\u202Egnp.exe`);
    await h.say("/watch list");
    await h.settle();
    const texts = h.fake.messages(PRIVATE_CHAT).map((m) => m.html);
    expect(texts.join("\n")).toContain("abcgnp.exe");
    for (const html of texts) expect(html).not.toMatch(BIDI);
  });

  it("a deny-list label from the service with U+202E and U+2066 is shown without them in compliance", async () => {
    const h = await startTelegramHarness();
    h.sandbox.screening.setCategory(ADDRESS, "aml_risk", { label: "Mixer \u202Eexe.gnp\u2066x\u2069" });
    await h.say(`/compliance ${ADDRESS}`);
    await h.settle();
    const [answer] = h.fake.messages(PRIVATE_CHAT);
    expect(answer?.text).toContain("Mixer exe.gnpx");
    expect(answer?.html).not.toMatch(BIDI);
  });
});

describe("telegram: a chat that is not served", () => {
  it("25 commands from a stranger get one refusal; a second instance on the same store stays silent too", async () => {
    const h = await startTelegramHarness();
    for (let i = 0; i < 25; i++) await h.say("/balance", { chat: STRANGER_CHAT });
    await h.settle();
    expect(h.fake.messages(STRANGER_CHAT).map((m) => m.text)).toEqual([refusalLine(STRANGER_CHAT)]);

    const other = await startTelegramHarness({ store: h.store, fake: h.fake });
    await other.say("/help", { chat: STRANGER_CHAT });
    await other.settle();
    expect(h.fake.messages(STRANGER_CHAT)).toHaveLength(1);
    expect(h.sandbox.calls()).toEqual([]);
  });
});

describe("telegram: invisible characters are named", () => {
  it("an amount with a zero-width space says so, and nothing is asked of the service", async () => {
    const h = await startTelegramHarness();
    await h.say(`/energy ${ADDRESS} 65\u200Bk`);
    await h.settle();
    const [answer] = h.fake.messages(PRIVATE_CHAT);
    expect(answer?.text).toMatch(/"65k" is not an amount \(it contains an invisible character \(U\+200B\)\)/);
    expect(h.sandbox.calls("pricing.get")).toEqual([]);
  });

  it("a label of invisible characters only is refused; a label of 80 emoji is accepted", async () => {
    const h = await startTelegramHarness();
    await h.say(`/watch add ${ADDRESS} \u200B\u200D\u2060`);
    await h.settle();
    expect(h.fake.messages(PRIVATE_CHAT)[0]?.text).toMatch(/no visible character.*U\+200B/);
    await h.say(`/watch add ${ADDRESS} ${"🚀".repeat(80)}`);
    await h.settle();
    expect(h.fake.messages(PRIVATE_CHAT)[1]?.text).not.toMatch(/at most 80 characters/);
    expect(h.fake.messages(PRIVATE_CHAT)[1]?.text).toContain("🚀");
  });
});

describe("telegram: one reply never floods the chat", () => {
  const hugeCommand: CommandDefinition = {
    verb: "huge",
    role: "viewer",
    summary: "a reply of 200 000 characters",
    usage: "huge",
    example: "huge",
    async run() {
      const lines = Array.from({ length: 4_000 }, (_, i) => `line ${i} ${"x".repeat(40)}`);
      return publicReply("huge", [text(lines.join("\n"))]);
    },
  };

  it("a 200 000-character reply becomes at most 4 messages, the last saying how much is not shown", async () => {
    const h = await startTelegramHarness({ registry: { commands: [helpCommand, hugeCommand], actions: [] } });
    await h.say("/huge");
    await h.settle();
    const messages = h.fake.messages(PRIVATE_CHAT);
    expect(messages).toHaveLength(MAX_REPLY_PARTS);
    for (const m of messages) expect(m.html.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    expect(messages.at(-1)?.text).toMatch(/… cut here: about \d+ more messages of this reply not shown\.$/);
  });
});

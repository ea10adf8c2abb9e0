import { describe, expect, it } from "vitest";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import type { FakeMessage } from "../../fakes/telegram-api.js";
import {
  GROUP_CHAT,
  messageUpdate,
  OPERATOR,
  replyUpdate,
  STRANGER_CHAT,
  startTelegramHarness,
  type TelegramHarness,
  VIEWER,
} from "./harness.js";

/**
 * Paste-to-check in a group and the ForceReply form for missing arguments, through real grammY
 * against the fake Bot API.
 */
const ADDRESS = tronAddress("native-telegram");

const buttons = (m: FakeMessage | undefined): string[] =>
  m?.replyMarkup?.inline_keyboard.flat().map((b) => b.text) ?? [];

/** The person answers a message of the bot (Telegram's reply, as a ForceReply prompt opens it). */
async function replyTo(
  h: TelegramHarness,
  asked: FakeMessage,
  text: string,
  from: typeof OPERATOR | typeof VIEWER = OPERATOR,
) {
  return h.postUpdate(replyUpdate(asked, text, from, h.fake.me));
}

describe("paste-to-check in a Telegram group", () => {
  it("an address alone gets the verdict as a reply, with Screen and Energy buttons; other text nothing", async () => {
    const h = await startTelegramHarness();
    await h.say("morning all", { chat: GROUP_CHAT, from: VIEWER });
    await h.say(`is ${ADDRESS} ok?`, { chat: GROUP_CHAT, from: VIEWER });
    await h.settle();
    expect(h.fake.messages(GROUP_CHAT)).toEqual([]);

    const pasted = messageUpdate(ADDRESS, GROUP_CHAT, VIEWER);
    await h.postUpdate(pasted);
    await h.settle();
    const [verdict] = h.fake.messages(GROUP_CHAT);
    expect(verdict?.text).toContain(ADDRESS);
    expect(verdict?.replyTo).toBe(pasted.message.message_id);
    expect(buttons(verdict)).toEqual(["Screen (billed)", "Energy 65k quote", "Watch"]);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(1);
  });

  it("a mention of the bot with an address is checked; a chat that is not served gets nothing", async () => {
    const h = await startTelegramHarness();
    await h.say(`@${h.fake.me.username} ${ADDRESS}`, { chat: GROUP_CHAT, from: VIEWER });
    await h.say(ADDRESS, { chat: STRANGER_CHAT, from: VIEWER });
    await h.settle();
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(1);
    expect(h.fake.messages(STRANGER_CHAT)).toEqual([]);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(1);
  });

  it("a pasted list is flood-limited: five verdicts, one line, then silence", async () => {
    const h = await startTelegramHarness();
    for (let i = 0; i < 8; i += 1)
      await h.say(tronAddress(`tg-flood-${i}`), { chat: GROUP_CHAT, from: VIEWER });
    await h.settle();
    const texts = h.fake.messages(GROUP_CHAT).map((m) => m.text);
    expect(texts).toHaveLength(6);
    expect(texts.filter((t) => /More than 5 pasted addresses/.test(t))).toHaveLength(1);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(5);
  });

  it("Energy 65k quote on the verdict gives the same quote as `energy <address> 65k`", async () => {
    const h = await startTelegramHarness();
    await h.say(ADDRESS, { chat: GROUP_CHAT, from: VIEWER });
    await h.settle();
    const [verdict] = h.fake.messages(GROUP_CHAT);
    await h.click(verdict!, "Energy 65k quote", OPERATOR);
    await h.settle();
    const [quote] = h.fake.messages(GROUP_CHAT);
    expect(quote?.text).toMatch(/65,000/);
    expect(buttons(quote)).toEqual(expect.arrayContaining([expect.stringMatching(/Confirm/)]));
  });
});

describe("follow-ups as replies", () => {
  it("a statement file is posted as a reply to the command that asked for it", async () => {
    const h = await startTelegramHarness();
    const typed = messageUpdate(`/statement ${ADDRESS} 2025-01-01 2025-01-31`, GROUP_CHAT, OPERATOR);
    await h.postUpdate(typed);
    await h.fake.waitFor(() => h.fake.calls("sendDocument").length === 1, 5_000);
    await h.settle();
    const messages = h.fake.messages(GROUP_CHAT);
    const [ordered, ready] = messages;
    expect(ordered?.text).toMatch(/^Statement REP\w+ ordered/);
    expect(ready?.text).toMatch(/ready/);
    // The ordered line answers the command as any group answer does; the later post does too.
    expect(ready?.replyTo).toBe(typed.message.message_id);
    expect(messages.some((m) => m.document)).toBe(true);
  });
});

describe("ForceReply for missing arguments", () => {
  it("/energy alone asks for the arguments; the reply runs the quote → Confirm", async () => {
    const h = await startTelegramHarness();
    const typed = messageUpdate("/energy", GROUP_CHAT, OPERATOR);
    await h.postUpdate(typed);
    await h.settle();
    const [prompt] = h.fake.messages(GROUP_CHAT);
    expect(prompt?.forceReply).toEqual({ selective: true });
    expect(prompt?.replyTo).toBe(typed.message.message_id);
    expect(prompt?.text).toMatch(/reply to this message with the address and the amount/);

    // Someone else's reply is conversation, not the arguments.
    await replyTo(h, prompt!, `${ADDRESS} 65k`, VIEWER);
    await h.settle();
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(1);

    await replyTo(h, prompt!, `${ADDRESS} 65k`);
    await h.settle();
    const quote = h.fake.messages(GROUP_CHAT)[1];
    expect(quote?.text).toContain(ADDRESS);
    expect(buttons(quote)).toEqual(expect.arrayContaining([expect.stringMatching(/Confirm/)]));
    await h.click(quote!, /Confirm/);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("a bad answer gets the text grammar's one line, and nothing is asked of the service", async () => {
    const h = await startTelegramHarness();
    await h.say(`/energy ${ADDRESS} 12`, { chat: GROUP_CHAT });
    await h.settle();
    const typedError = h.fake.messages(GROUP_CHAT)[0]?.text;
    await h.say("/energy", { chat: GROUP_CHAT });
    await h.settle();
    const prompt = h.fake.messages(GROUP_CHAT)[1];
    await replyTo(h, prompt!, `${ADDRESS} 12`);
    await h.settle();
    // The same line, asking again for an answer.
    expect(h.fake.messages(GROUP_CHAT)[2]?.text).toBe(
      `${typedError} Reply to this message with another answer.`,
    );
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
    expect(h.sandbox.calls("pricing.get")).toEqual([]);
  });

  it("a viewer's /statement gets the refusal line, not a prompt", async () => {
    const h = await startTelegramHarness();
    await h.say("/statement", { chat: GROUP_CHAT, from: VIEWER });
    await h.settle();
    const [answer] = h.fake.messages(GROUP_CHAT);
    expect(answer?.forceReply).toBeUndefined();
    expect(answer?.text).toContain("statement needs the operator role");
  });
});

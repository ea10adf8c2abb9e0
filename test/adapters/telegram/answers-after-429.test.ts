import { describe, expect, it } from "vitest";
import { GROUP_CHAT, messageUpdate, OPERATOR, startTelegramHarness } from "./harness.js";

/**
 * Issue 23, point 1: 40 commands in a group within seconds; Telegram takes about 20 messages a
 * minute there and answers the rest 429 with `retry_after`. The answers that had to wait are
 * queued and sent whole, in the order asked, each as a reply to its command: never folded into a
 * "20 notifications" digest of first lines. (The queue's delays run at 1/100 of real time.)
 */
const COMMANDS = ["/help", "/balance"];
/** A pace per chat, as in production (where a busy chat's notices are digested), short for the test. */
const notifyGapMs = () => 100;

describe("telegram: command answers after a 429 in a group", () => {
  it("the 20 answers Telegram refused arrive later whole, in order, each quoting its command", async () => {
    // The test's clock, not the machine's: on a loaded machine the balance copy aged past its 15 s
    // between the first and the last answers, and those were made from a newer reading (another
    // service time): whole answers, but not the first one's (issue 44, finding 7).
    const at = Date.now();
    const h = await startTelegramHarness({ now: () => at, retry: { maxDelaySeconds: 0 }, notifyGapMs });
    h.fake.limitChat(GROUP_CHAT, { allow: 20, retryAfter: 1 });
    const asked: { id: number; line: string }[] = [];
    for (let i = 0; i < 40; i++) {
      const line = COMMANDS[i % COMMANDS.length] ?? "/help";
      const update = messageUpdate(line, GROUP_CHAT, OPERATOR);
      asked.push({ id: update.message.message_id, line });
      await h.postUpdate(update);
      // One after another, as a person sees them go out: the order asked is the order queued.
      await h.adapter.idle();
    }
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(20);
    expect(h.fake.calls("sendMessage").some((c) => c.status === 429)).toBe(true);

    // Telegram's minute has passed.
    h.fake.liftLimit(GROUP_CHAT);
    await h.settle(10_000);

    const messages = h.fake.messages(GROUP_CHAT);
    expect(messages).toHaveLength(40);
    const fullAnswer = new Map(messages.slice(0, 2).map((m, i) => [asked[i]?.line, m.text]));
    expect(fullAnswer.get("/help")).toMatch(/^What I can do\n/);
    expect(fullAnswer.get("/balance")).toMatch(/^Account balance\n/);
    // The balance line carries the moment it was read; everything else is the same answer.
    const shape = (text: string | undefined) => text?.replace(/read .* ago/g, "read … ago");
    for (const [i, message] of messages.entries()) {
      expect(message.replyTo).toBe(asked[i]?.id);
      expect(shape(message.text)).toBe(shape(fullAnswer.get(asked[i]?.line)));
    }
    expect(messages.some((m) => /notifications/.test(m.text))).toBe(false);
  });

  it("an answer asked while earlier ones still wait in the queue goes behind them", async () => {
    const h = await startTelegramHarness({ retry: { maxDelaySeconds: 0 }, notifyGapMs });
    h.fake.limitChat(GROUP_CHAT, { allow: 0, retryAfter: 1 });
    const first = messageUpdate("/help", GROUP_CHAT, OPERATOR);
    await h.postUpdate(first);
    await h.adapter.idle();
    // Telegram takes messages again, but the first answer still waits for its slot in the queue.
    h.fake.liftLimit(GROUP_CHAT);
    const second = messageUpdate("/balance", GROUP_CHAT, OPERATOR);
    await h.postUpdate(second);
    await h.settle();
    expect(h.fake.messages(GROUP_CHAT).map((m) => m.replyTo)).toEqual([
      first.message.message_id,
      second.message.message_id,
    ]);
  });
});

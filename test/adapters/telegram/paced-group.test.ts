import { describe, expect, it } from "vitest";
import { GROUP_CHAT, messageUpdate, OPERATOR, startTelegramHarness } from "./harness.js";

/**
 * Issue 44, finding 7: 40 commands at 4 a second into a group where Telegram takes 20 messages a
 * minute (the fake counts a sliding minute on the test's clock and answers the rest 429 with the
 * wait). Every answer arrives whole, in the order asked, each as a reply to its command. The
 * clock is the test's: the bot's and Telegram's minute pass when the test moves it, never with
 * the machine's load. (In a busy run on the real clock, the /balance copy aged past its 15 s
 * between the first answers and the last: those were answered from another reading, with its own
 * service time or a "This copy is … old" line, so they differed from the first.)
 */
const COMMANDS = ["/help", "/balance"];
const notifyGapMs = () => 100;

describe("telegram: a group paced at 20 messages a minute", () => {
  it("40 commands at 4 a second: all 40 answers whole, in order, each quoting its command", async () => {
    let at = Date.parse("2026-11-29T10:00:00Z");
    const now = () => at;
    const h = await startTelegramHarness({ now, retry: { maxDelaySeconds: 0 }, notifyGapMs });
    h.fake.paceChat(GROUP_CHAT, { perMinute: 20, now });
    const asked: { id: number; line: string }[] = [];
    for (let i = 0; i < 40; i++) {
      const line = COMMANDS[i % COMMANDS.length] ?? "/help";
      const update = messageUpdate(line, GROUP_CHAT, OPERATOR);
      asked.push({ id: update.message.message_id, line });
      await h.postUpdate(update);
      await h.adapter.idle();
      at += 250;
    }
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(20);
    expect(h.fake.calls("sendMessage").filter((c) => c.status === 429).length).toBeGreaterThan(0);

    // Telegram's minute passes on the test's clock; the queued answers go out.
    at += 60_000;
    await h.settle(15_000).catch((e) =>
      console.log(
        "SETTLE",
        String(e),
        h.fake.messages(GROUP_CHAT).length,
        h.fake
          .calls("sendMessage")
          .map((c) => c.status)
          .join(","),
      ),
    );

    const messages = h.fake.messages(GROUP_CHAT);
    expect(messages).toHaveLength(40);
    const first = new Map(messages.slice(0, 2).map((m, i) => [asked[i]?.line, m.text]));
    expect(first.get("/help")).toMatch(/^What I can do\n/);
    expect(first.get("/balance")).toMatch(/^Account balance\n/);
    // Only the reading's age (when the answer was made) differs between two /balance answers.
    const shape = (text: string | undefined) => text?.replace(/read (<1|\d+) s ago/g, "read … ago");
    for (const [i, message] of messages.entries()) {
      expect(message.replyTo, `answer ${i}`).toBe(asked[i]?.id);
      expect(shape(message.text), `answer ${i}`).toBe(shape(first.get(asked[i]?.line)));
    }
    expect(messages.some((m) => /notifications/.test(m.text))).toBe(false);
    // One reading served every /balance of the burst: no second read, no stale-copy line.
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
  });
});

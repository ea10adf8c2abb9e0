import { describe, expect, it } from "vitest";
import { OPERATOR, PRIVATE_CHAT, startTelegramHarness } from "./harness.js";

/** `help` on Telegram as an operator finds it on a busy day (issue 46, finding 6). */
describe("telegram: help", () => {
  it("with agents configured help is one message, and its energy and verify examples run as shown", async () => {
    const h = await startTelegramHarness({
      settings: { agentChannel: { platform: "telegram", id: String(PRIVATE_CHAT) } },
    });
    await h.say("/help");
    await h.settle();
    const answers = h.fake.messages(PRIVATE_CHAT);
    expect(answers).toHaveLength(1);
    const help = answers[0]!.text;
    expect(help).toContain("Agents' requests");

    const energy = /Example: (\/energy \S+ \S+)/.exec(help)?.[1] ?? "";
    await h.say(energy, { from: OPERATOR });
    await h.settle();
    const quote = h.fake.messages(PRIVATE_CHAT).at(-1);
    expect(quote?.text).not.toMatch(/smart contract|Refused/);
    expect(quote?.replyMarkup?.inline_keyboard.flat().map((b) => b.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Confirm/)]),
    );

    const verify = /Example: (\/verify \S+)/.exec(help)?.[1] ?? "";
    await h.say(verify);
    await h.settle();
    expect(h.fake.messages(PRIVATE_CHAT).at(-1)?.text).toMatch(/^Not genuine: no certificate was issued/);
  });
});

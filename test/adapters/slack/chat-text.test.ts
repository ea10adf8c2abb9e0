import { describe, expect, it } from "vitest";
import { CHANNEL, messageText, OPERATOR, startSlackHarness } from "./harness.js";

/** Small things of the chat surface on Slack (issue 46, finding 6). */
describe("slack: the bot's own lines", () => {
  it("`verify garbage` is answered to its sender only; a code that is well formed is the channel's", async () => {
    const h = await startSlackHarness();
    const before = h.fake.channelMessages(CHANNEL).length;
    await h.command("/ops verify garbage");
    await h.settle();
    expect(h.fake.ephemerals(OPERATOR.id).map(messageText)).toEqual([
      expect.stringMatching(/^Not genuine: it is not a verification code/),
    ]);
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(before);
  });

  it("a command named in a line is Slack code, not look-alike backticks", async () => {
    const h = await startSlackHarness();
    await h.command("/ops cases 0");
    await h.settle();
    const [line] = h.fake.ephemerals(OPERATOR.id);
    expect(messageText(line)).toContain("— `all` adds the cases closed");
    expect(messageText(line)).not.toContain("ˋ");
  });
});

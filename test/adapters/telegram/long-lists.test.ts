import { describe, expect, it } from "vitest";
import { seedCases, seedStandingOrders } from "../../support/long-lists.js";
import { OPERATOR, PRIVATE_CHAT, startTelegramHarness } from "./harness.js";

/** `schedule list [page]` and `cases [all] [page]` on Telegram: each page one message, the page count said. */
describe("telegram: long lists page", () => {
  it("50 standing orders and 60 cases page; each page is one message", async () => {
    const h = await startTelegramHarness();
    const here = { platform: "telegram" as const, id: String(PRIVATE_CHAT) };
    await seedStandingOrders(h.deps, here, { platform: "telegram", userId: String(OPERATOR.id) }, 50);
    await seedCases(h.deps, 60);
    const listed = async (line: string) => {
      const before = h.fake.messages(PRIVATE_CHAT).length;
      await h.say(line);
      await h.settle();
      const answers = h.fake.messages(PRIVATE_CHAT).slice(before);
      expect(answers).toHaveLength(1);
      return answers[0]!.text;
    };
    const orders = await listed("/schedule list 2");
    expect(orders.match(/^S\d+ · /gm)).toEqual(Array.from({ length: 20 }, (_, i) => `S${21 + i} · `));
    expect(orders).toContain("Page 2 of 3; schedule list 3 for the next.");
    const cases = await listed("/cases 3");
    expect(cases.match(/• C\d+ /g)).toHaveLength(20);
    expect(cases).toContain("Page 3 of 3; cases 1 for the first.");
    expect(await listed("/cases 0")).toMatch(/^Usage: cases \[all\] \[page\]/);
  });
});

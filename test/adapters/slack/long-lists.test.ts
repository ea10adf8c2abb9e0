import { describe, expect, it } from "vitest";
import { seedCases, seedStandingOrders } from "../../support/long-lists.js";
import { CHANNEL, messageText, OPERATOR, startSlackHarness } from "./harness.js";

/** `schedule list [page]` and `cases [all] [page]` on Slack: a busy day's lists page, with the page count said. */
describe("slack: long lists page", () => {
  it("50 standing orders: three pages of whole lines; schedule list 3 shows the last ten", async () => {
    const h = await startSlackHarness();
    const here = { platform: "slack" as const, id: CHANNEL };
    await seedStandingOrders(h.deps, here, { platform: "slack", userId: OPERATOR.id }, 50);
    const listed = async (line: string) => {
      await h.command(line);
      await h.settle();
      return messageText(h.fake.allMessages().at(-1));
    };
    const first = await listed("/ops schedule list");
    expect(first.match(/^S\d+ · /gm)).toHaveLength(20);
    expect(first).toContain("Page 1 of 3; schedule list 2 for the next.");
    expect(first).not.toMatch(/not shown/);
    const last = await listed("/ops schedule list 3");
    expect(last.match(/^S\d+ · /gm)).toEqual(Array.from({ length: 10 }, (_, i) => `S${41 + i} · `));
    expect(last).toContain("Page 3 of 3; schedule list 1 for the first.");
    expect(await listed("/ops schedule list two")).toMatch(/schedule list takes a page number/);
  });

  it("60 open cases: cases 2 shows the second page; cases all 3 the third", async () => {
    const h = await startSlackHarness();
    await seedCases(h.deps, 60);
    const listed = async (line: string) => {
      await h.command(line);
      await h.settle();
      return messageText(h.fake.channelMessages(CHANNEL).at(-1));
    };
    const second = await listed("/ops cases 2");
    expect(second).toMatch(/^60 AML cases$/m);
    expect(second.match(/• C\d+ /g)).toHaveLength(20);
    expect(second).toContain("Page 2 of 3; cases 3 for the next.");
    expect(second).not.toMatch(/more/);
    const third = await listed("/ops cases all 3");
    expect(third.match(/• C\d+ /g)).toHaveLength(20);
    expect(third).toContain("Page 3 of 3; cases all 1 for the first.");
  });
});

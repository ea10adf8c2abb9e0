import { describe, expect, it } from "vitest";
import { freshAddress } from "../../support/spend-harness.js";
import { APP_ID, CHANNEL, cardActions, cardOf, startTeamsHarness, VIEWER } from "./harness.js";

describe("teams: commands and buttons", () => {
  it("a mention with a command answers in the thread through the connector, with the bot's own token", async () => {
    const h = await startTeamsHarness();
    expect((await h.say("prices")).status).toBe(200);
    await h.settle();
    expect(h.sandbox.calls("pricing.get").length).toBeGreaterThan(0);
    const [posted] = h.fake.activities;
    expect(posted?.conversationId).toBe(`${CHANNEL};messageid=root-1`);
    expect(posted?.authorization).toBe("Bearer fake-bot-token");
    expect(h.fake.tokenRequests).toBe(1);
    expect(posted?.body.from).toMatchObject({ id: `28:${APP_ID}` });
  });

  it("energy: the quote is an Adaptive Card 1.5 with Action.Execute buttons; Confirm once places one order", async () => {
    const h = await startTeamsHarness();
    const address = freshAddress("teams");
    await h.say(`energy ${address} 65k`);
    await h.settle();
    const quote = cardOf(h.fake.activities.at(-1)?.body ?? {});
    expect(quote).toMatchObject({ type: "AdaptiveCard", version: "1.5" });
    expect(JSON.stringify(quote)).toContain(address);
    const actions = cardActions(quote);
    expect(actions.map((a) => a.title)).toEqual([expect.stringMatching(/^Confirm \d/), "Cancel"]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);

    const pressed = await h.press(quote ?? {}, /^Confirm/);
    expect(pressed.status).toBe(200);
    const answer = (await pressed.json()) as { statusCode: number; type: string; value: unknown };
    expect(answer).toMatchObject({ statusCode: 200, type: "application/vnd.microsoft.card.adaptive" });
    expect(JSON.stringify(answer.value)).toMatch(/Energy delegated/);
    expect(cardActions(answer.value)).toEqual([]);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);

    // The same button again (a second click, another instance's replay): refused as a line, nothing ordered.
    const again = await h.press(quote ?? {}, /^Confirm/);
    expect(await again.json()).toMatchObject({
      statusCode: 200,
      type: "application/vnd.microsoft.activity.message",
    });
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("a viewer's Confirm is refused as a message-type answer; nothing is ordered or posted", async () => {
    const h = await startTeamsHarness();
    await h.say(`energy ${freshAddress("teams-v")} 65k`);
    await h.settle();
    const posted = h.fake.activities.length;
    const quote = cardOf(h.fake.activities.at(-1)?.body ?? {});
    const pressed = await h.press(quote ?? {}, /^Confirm/, VIEWER);
    const answer = (await pressed.json()) as { type: string; value: string };
    expect(answer.type).toBe("application/vnd.microsoft.activity.message");
    expect(answer.value).toMatch(/operator/i);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(h.fake.activities).toHaveLength(posted);
  });
});

describe("teams: the bot's own token", () => {
  it("is asked for once when many answers go out at once on a fresh start, then reused", async () => {
    const h = await startTeamsHarness();
    const said = await Promise.all(Array.from({ length: 8 }, () => h.say("prices")));
    expect(said.map((r) => r.status)).toEqual(Array(8).fill(200));
    await h.settle();
    expect(h.fake.activities).toHaveLength(8);
    expect(h.fake.tokenRequests).toBe(1);
    expect(new Set(h.fake.activities.map((a) => a.authorization))).toEqual(
      new Set(["Bearer fake-bot-token"]),
    );
  });
});

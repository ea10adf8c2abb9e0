import { describe, expect, it } from "vitest";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { CHANNEL, cardActions, cardOf, startTeamsHarness, VIEWER } from "./harness.js";

/** Paste-to-check on Teams: a mention of the bot with an address alone, as on Slack and Telegram. */
const ADDRESS = tronAddress("paste-teams");

const texts = (h: Awaited<ReturnType<typeof startTeamsHarness>>) =>
  h.fake.activities.map((a) => JSON.stringify(a.body));

describe("teams: a pasted address", () => {
  it("gets its deny-list verdict in the thread, with Screen, Energy and Watch buttons", async () => {
    const h = await startTeamsHarness();
    expect((await h.say(ADDRESS, { from: VIEWER })).status).toBe(200);
    await h.settle();
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(1);
    const [verdict] = h.fake.activities;
    expect(verdict?.conversationId).toBe(`${CHANNEL};messageid=root-1`);
    const card = cardOf(verdict?.body ?? {});
    expect(JSON.stringify(card)).toContain(ADDRESS);
    expect(cardActions(card).map((a) => a.title)).toEqual(["Screen (billed)", "Energy 65k quote", "Watch"]);
  });

  it("in Teams' inline code or backticks too; a sentence naming an address is not a paste", async () => {
    const h = await startTeamsHarness();
    await h.say(`<code>${ADDRESS}</code>`, { from: VIEWER });
    await h.say(`\`${tronAddress("paste-teams-2")}\``, { from: VIEWER });
    await h.settle();
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(2);
    await h.say(`is ${tronAddress("paste-teams-3")} ok?`, { from: VIEWER });
    await h.settle();
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(2);
    expect(texts(h).at(-1)).not.toContain("Energy 65k quote");
  });

  it("Energy 65k quote turns the verdict into the quote of `energy <address> 65k`, with Confirm", async () => {
    const h = await startTeamsHarness();
    await h.say(ADDRESS, { from: VIEWER });
    await h.settle();
    const verdict = cardOf(h.fake.activities[0]?.body ?? {});
    const pressed = await h.press(verdict ?? {}, "Energy 65k quote");
    expect(pressed.status).toBe(200);
    // As on Slack and Telegram, the verdict's message becomes the quote: the invoke's answer is its new card.
    const answer = (await pressed.json()) as { type: string; value: unknown };
    expect(answer.type).toBe("application/vnd.microsoft.card.adaptive");
    const quote = answer.value;
    expect(cardActions(quote).map((a) => a.title)).toEqual([expect.stringMatching(/^Confirm \d/), "Cancel"]);
    expect(JSON.stringify(quote)).toMatch(/65,000/);
    expect(JSON.stringify(quote)).toContain(ADDRESS);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("a pasted list is flood-limited: five verdicts, one line, then silence", async () => {
    const h = await startTeamsHarness();
    for (let i = 0; i < 8; i += 1) await h.say(tronAddress(`teams-flood-${i}`), { from: VIEWER });
    await h.settle();
    expect(h.fake.activities).toHaveLength(6);
    expect(texts(h).filter((t) => /More than 5 pasted addresses/.test(t))).toHaveLength(1);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(5);
  });
});

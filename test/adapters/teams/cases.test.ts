import { describe, expect, it } from "vitest";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening/demo-addresses.js";
import { waitFor } from "../../support/bot-kit.js";
import { messageActivity } from "./activities.js";
import { CHANNEL, cardActions, cardOf, startTeamsHarness, type TeamsHarness } from "./harness.js";

/** AML cases on Teams: Clear… asks for the reason with a card input; an empty reason closes nothing. */
async function setup(): Promise<TeamsHarness> {
  return startTeamsHarness({
    settings: {
      cases: {
        levels: ["high", "severe"],
        slaMs: 60 * 60_000,
        certKeyHex: "cd".repeat(32),
        destinations: [{ platform: "teams", id: CHANNEL }],
      },
    },
  });
}

describe("teams: AML cases", () => {
  it("Clear… answers with a reason input; an empty reason closes nothing; a reason clears the case", async () => {
    const h = await setup();
    await h.say(`screen ${DEMO_ADDRESSES.highRisk}`);
    await h.settle();
    const posted = await waitFor(
      () =>
        h.fake.activities.find((a) => a.conversationId === CHANNEL && /Clear/.test(JSON.stringify(a.body))),
      "the case in its channel",
    );
    const card = cardOf(posted.body) ?? {};
    expect(cardActions(card).map((a) => a.title)).toEqual(["Take", "Clear…", "Report…"]);
    const where = { conversationId: CHANNEL, messageId: posted.id };

    const asked = (await (await h.press(card, "Clear…", undefined, where)).json()) as {
      type: string;
      value: Record<string, unknown>;
    };
    expect(asked.type).toBe("application/vnd.microsoft.card.adaptive");
    expect(JSON.stringify(asked.value)).toContain('"Input.Text"');
    const [submit] = cardActions(asked.value);
    expect(submit).toBeDefined();

    const send = async (reason: string) => {
      const base = messageActivity(h.fake, "");
      const response = await h.post({
        ...base,
        conversation: { ...base.conversation, id: CHANNEL },
        type: "invoke",
        name: "adaptiveCard/action",
        text: undefined,
        entities: undefined,
        replyToId: posted.id,
        value: { action: { type: "Action.Execute", verb: submit?.verb, data: { ...submit?.data, reason } } },
      });
      return (await response.json()) as { type: string; value: unknown };
    };
    const empty = await send("  ");
    expect(empty).toEqual({
      statusCode: 200,
      type: "application/vnd.microsoft.activity.message",
      value: "Nothing was done: a reason is needed.",
    });
    const cleared = await send("customer documents checked");
    expect(cleared.type).toBe("application/vnd.microsoft.card.adaptive");
    await h.settle();
    const all = JSON.stringify([cleared.value, ...h.fake.activities.map((a) => a.body)]);
    expect(all).toMatch(/cleared/);
    expect(all).toContain("customer documents checked");
  });
});

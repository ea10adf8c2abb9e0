import { describe, expect, it } from "vitest";
import { raiseAlert } from "../../../src/core/alerts/index.js";
import { publicReply, text } from "../../../src/core/reply.js";
import { APP_ID, cardActions, cardOf, startTeamsHarness, type TeamsHarness } from "./harness.js";

/** A team the bot is not installed in yet; its General channel's id is the team's id. */
const ALERTS = "19:alerts0team@thread.tacv2";

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const installed = (h: TeamsHarness) => ({
  type: "conversationUpdate",
  id: "install-1",
  channelId: "msteams",
  serviceUrl: h.fake.serviceUrl,
  from: { id: "29:installer", aadObjectId: "0c0c0c0c-0000-4000-8000-00000000a0ff" },
  recipient: { id: `28:${APP_ID}`, name: "opsbot" },
  conversation: { id: ALERTS, conversationType: "channel", isGroup: true },
  membersAdded: [{ id: `28:${APP_ID}` }],
  channelData: {
    tenant: { id: "5f1e2d3c-0000-4000-8000-00000000a11c" },
    team: { id: ALERTS },
    eventType: "teamMemberAdded",
  },
});

describe("teams: proactive messages to ALERT_TEAMS_CONVERSATION", () => {
  it("an alert waits until the bot is installed in that team, is posted there once, and Ack answers with the card's new state", async () => {
    const h = await startTeamsHarness();
    await raiseAlert(h.deps, {
      key: "runway:low:teams",
      kind: "runway.low",
      subject: { type: "account", id: "balance" },
      severity: "critical",
      posts: [
        {
          conversation: { platform: "teams", id: ALERTS },
          reply: publicReply("Balance running low", [text("Balance running low")]),
        },
      ],
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.activities.filter((a) => a.conversationId === ALERTS)).toEqual([]);

    expect((await h.post(installed(h))).status).toBe(200);
    await waitFor(
      () => h.fake.activities.some((a) => a.conversationId === ALERTS),
      "the alert in its channel",
    );
    await h.settle();
    const posted = h.fake.activities.filter((a) => a.conversationId === ALERTS);
    expect(posted).toHaveLength(1);
    const card = cardOf(posted[0]?.body ?? {});
    expect(cardActions(card).map((a) => a.title)).toEqual(["Ack", "Snooze 1h", "Resolve"]);

    const where = { conversationId: ALERTS, messageId: posted[0]?.id ?? "" };
    const pressed = await h.press(card ?? {}, "Ack", undefined, where);
    const answer = (await pressed.json()) as { type: string; value: unknown };
    expect(answer.value).not.toBeTypeOf("string");
    expect(answer.type).toBe("application/vnd.microsoft.card.adaptive");
    expect(JSON.stringify(answer.value)).toMatch(/[Aa]cknowledged/);
    expect(cardActions(answer.value).map((a) => a.title)).not.toContain("Ack");

    const resolved = await h.press(answer.value as Record<string, unknown>, "Resolve", undefined, where);
    const after = (await resolved.json()) as { type: string; value: unknown };
    expect(after.type).toBe("application/vnd.microsoft.card.adaptive");
    expect(JSON.stringify(after.value)).toMatch(/[Rr]esolved/);
    expect(cardActions(after.value)).toEqual([]);
  });
});

import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FAKE_SLACK_TEAM } from "../../fakes/slack-api.js";
import { CHANNEL, messageText, OPERATOR, type Signed, startSlackHarness } from "./harness.js";

/**
 * Malformed but signed Slack payloads, and payload types the bot has no listener for: each is
 * acknowledged at once with 200 (Bolt would hold it 3 s and answer 404), logged in one line
 * without a stack, and nothing is posted or run.
 */
const id = (): string => randomBytes(6).toString("hex");
const interactive = (payload: Record<string, unknown>): Signed => ({
  raw: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
  contentType: "application/x-www-form-urlencoded",
});
const base = () => ({
  user: { id: OPERATOR.id, username: OPERATOR.name, team_id: FAKE_SLACK_TEAM },
  team: { id: FAKE_SLACK_TEAM, domain: "fake" },
  api_app_id: "A0OPSBOT",
  token: "verification-token",
  trigger_id: `${Date.now()}.${id()}`,
});

const PAYLOADS: [string, Signed][] = [
  [
    "a global shortcut",
    interactive({ ...base(), type: "shortcut", callback_id: "do_thing", action_ts: "1" }),
  ],
  [
    "a message shortcut",
    interactive({ ...base(), type: "message_action", callback_id: "x", channel: { id: CHANNEL } }),
  ],
  [
    "a closed modal",
    interactive({ ...base(), type: "view_closed", is_cleared: false, view: { id: "V1", callback_id: "x" } }),
  ],
  [
    "block_actions with no actions",
    interactive({
      ...base(),
      type: "block_actions",
      container: { type: "message", message_ts: "1.2", channel_id: CHANNEL },
      channel: { id: CHANNEL },
      actions: [],
    }),
  ],
];

function eventWithObjectText(): Signed {
  const body = {
    token: "verification-token",
    team_id: FAKE_SLACK_TEAM,
    api_app_id: "A0OPSBOT",
    type: "event_callback",
    event_id: `Ev${id()}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: "message",
      channel: CHANNEL,
      channel_type: "channel",
      user: OPERATOR.id,
      text: { evil: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8" },
      ts: `${Date.now() / 1000}`,
    },
  };
  return { raw: JSON.stringify(body), contentType: "application/json" };
}

describe("slack: payloads the bot does not handle", () => {
  for (const [name, body] of PAYLOADS) {
    it(`${name}: acknowledged at once (200), one log line, nothing posted`, async () => {
      const h = await startSlackHarness();
      const response = await h.post(body);
      expect(response.status).toBe(200);
      await h.settle();
      const lines = h.logger.records.filter((r) => r.msg?.startsWith("Slack payload not handled"));
      expect(lines).toHaveLength(1);
      expect(h.logger.records.filter((r) => r.level === "error")).toEqual([]);
      expect(h.fake.allMessages()).toEqual([]);
    });
  }

  it("a message event whose text is an object: acknowledged, one warning without a stack, nothing run", async () => {
    const h = await startSlackHarness();
    const response = await h.post(eventWithObjectText());
    expect(response.status).toBe(200);
    await h.settle();
    const warned = h.logger.records.filter(
      (r) => r.msg === "Slack message event ignored: a field is not text",
    );
    expect(warned).toHaveLength(1);
    expect(JSON.stringify(warned[0]?.obj)).not.toMatch(/stack|at .*\.ts:/);
    expect(h.logger.records.filter((r) => r.level === "error")).toEqual([]);
    expect(h.fake.allMessages()).toEqual([]);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
  });
});

describe("slack: invisible characters in a command are named", () => {
  it("/ops \\u200Bhelp and /energy … 65\\u200Bk say which character is in the way, privately", async () => {
    const h = await startSlackHarness();
    await h.command("/ops \u200Bhelp");
    await h.command("/energy TJRabPrwbZy45sbavfcjinPJC18kjpRTv8 65\u200Bk");
    await h.settle();
    const [verb, amount] = h.fake.ephemerals(OPERATOR.id).map(messageText);
    expect(verb).toMatch(/unknown command "help" \(it contains an invisible character \(U\+200B\)\)/);
    expect(amount).toMatch(/"65k" is not an amount \(it contains an invisible character \(U\+200B\)\)/);
    expect(h.fake.channelMessages(CHANNEL)).toEqual([]);
    expect(h.sandbox.calls("pricing.get")).toEqual([]);
  });
});

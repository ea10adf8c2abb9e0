import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { STORE_UNAVAILABLE_LINE } from "../../../src/core/faults/store-unavailable.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import type { Store } from "../../../src/store/store.js";
import { FAKE_SLACK_TEAM, type FakeSlackApi } from "../../fakes/slack-api.js";
import { CHANNEL, messageText, OPERATOR, startSlackHarness, waitFor } from "./harness.js";

const commandEnvelope = (
  fake: FakeSlackApi,
  text: string,
  options: { team?: string; trigger?: string } = {},
) => ({
  envelope_id: randomBytes(8).toString("hex"),
  type: "slash_commands",
  accepts_response_payload: true,
  payload: {
    team_id: options.team ?? FAKE_SLACK_TEAM,
    channel_id: CHANNEL,
    user_id: OPERATOR.id,
    user_name: OPERATOR.name,
    command: "/balance",
    text,
    api_app_id: "A0OPSBOT",
    response_url: fake.responseUrl({ channel: CHANNEL, user: OPERATOR.id }),
    trigger_id: options.trigger ?? `1.2.${randomBytes(4).toString("hex")}`,
  },
});

describe("Socket Mode (SLACK_APP_TOKEN)", () => {
  it("connects with the app token, exposes no HTTP route, and answers a command sent over the socket", async () => {
    const h = await startSlackHarness({ socketMode: true });
    expect(h.adapter.route).toBeUndefined();
    expect(h.adapter.ready()).toBe(true);
    expect(h.fake.calls("apps.connections.open").map((c) => c.status)).toEqual([200]);
    expect(h.fake.socket.connections()).toBe(1);
    expect((await fetch(`${h.url}/slack/events`, { method: "POST", body: "x" })).status).toBe(404);

    const envelope = commandEnvelope(h.fake, "");
    const ack = await h.fake.socket.send(envelope);
    expect(ack.envelope_id).toBe(envelope.envelope_id);
    await h.settle();
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    expect(messageText(h.fake.channelMessages(CHANNEL)[0])).toContain("Account balance");

    await h.adapter.close(1_000);
    await waitFor(() => h.fake.socket.connections() === 0, "the socket to close");
    expect(h.adapter.ready()).toBe(false);
  });

  it("acks a re-delivered command and another workspace's command without running them", async () => {
    const h = await startSlackHarness({ socketMode: true, teamId: FAKE_SLACK_TEAM });
    const first = commandEnvelope(h.fake, "", { trigger: "1.2.same-trigger" });
    await h.fake.socket.send(first);
    await h.settle();
    const again = { ...commandEnvelope(h.fake, "", { trigger: "1.2.same-trigger" }), retry_attempt: 1 };
    await h.fake.socket.send(again);
    await h.fake.socket.send(commandEnvelope(h.fake, "", { team: "T0OTHERTEAM" }));
    await h.settle();
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    expect(
      h.logger.records.filter((r) => r.msg === "Slack request not admitted").map((r) => r.obj.reason),
    ).toEqual(["duplicate", "other_team"]);
  });

  it("answers a command the store cannot check with the one line in its ack, and runs nothing", async () => {
    const memory = createMemoryStore();
    const store: Store = {
      ...memory,
      close: () => memory.close(),
      setIfNotExists: async (key, value, ttlMs) => {
        if (key.startsWith("slack:request:")) throw new Error("connection lost");
        return memory.setIfNotExists(key, value, ttlMs);
      },
    };
    const h = await startSlackHarness({ socketMode: true, store });
    const ack = await h.fake.socket.send(commandEnvelope(h.fake, ""));
    expect(ack.payload).toEqual({ text: STORE_UNAVAILABLE_LINE, response_type: "ephemeral" });
    await h.settle();
    expect(h.sandbox.calls()).toEqual([]);
    expect(h.fake.channelMessages(CHANNEL)).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { createSlackAdapter } from "../../../adapters/slack/index.js";
import { createMemoryLogger } from "../../../src/core/logger.js";
import { publicReply, text } from "../../../src/core/reply.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import { FAKE_SLACK_BOT_TOKEN } from "../../fakes/slack-api.js";
import { SIGNING_SECRET } from "./payloads.js";

/** The links an escalation puts on the alert's name (src/core/alerts/timers.ts asks the adapter). */
describe("slack: a link to a message", () => {
  // Never started: a link is built from what the adapter is told, without asking Slack.
  const adapter = createSlackAdapter({
    config: { botToken: FAKE_SLACK_BOT_TOKEN, signingSecret: SIGNING_SECRET },
    core: { handle: async () => publicReply("unused", [text("unused")]) },
    store: createMemoryStore(),
    logger: createMemoryLogger(),
  });

  it("is the archive link of the channel's message, its dot dropped from the ts", () => {
    expect(adapter.messageLink?.({ platform: "slack", id: "C0OPS" }, "1700000000.000200")).toBe(
      "https://slack.com/archives/C0OPS/p1700000000000200",
    );
  });

  it("opens the thread of a reply in a thread", () => {
    const thread = { platform: "slack" as const, id: "C0OPS", threadId: "1700000000.000100" };
    expect(adapter.messageLink?.(thread, "1700000000.000200")).toBe(
      "https://slack.com/archives/C0OPS/p1700000000000200?thread_ts=1700000000.000100&cid=C0OPS",
    );
  });

  it("is none for a message id that is no ts (an App Home notice)", () => {
    expect(adapter.messageLink?.({ platform: "slack", id: "home:U0OPER" }, "")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { SLACK_PLATFORM } from "../../adapters/slack/platform.js";
import type { ConversationRef } from "../../src/core/invocation.js";
import { homeConversation, platformFacts } from "../../src/core/platforms.js";
import { PLATFORM_FACTS } from "../../src/wiring/platforms.js";

/**
 * Each adapter's platform facts as the core and the notify worker read them through the wiring's
 * map (the pace is checked by test/outbox/outbox.test.ts, the digest's size by
 * test/adapters/render-limits.test.ts).
 */
const facts = (platform: ConversationRef["platform"]) => platformFacts(PLATFORM_FACTS, platform);

describe("platform facts", () => {
  it("the wiring describes every platform, each under its own name", () => {
    expect([...PLATFORM_FACTS.keys()].sort()).toEqual(["console", "slack", "teams", "telegram"]);
    for (const [platform, f] of PLATFORM_FACTS) expect(f.platform).toBe(platform);
  });

  it("follow-ups go in the Slack thread (kept when there is one), as a Telegram reply, flat on the console", () => {
    const slack: ConversationRef = { platform: "slack", id: "C1" };
    expect(facts("slack").followUp(slack, "1700000000.000100")).toEqual({
      ...slack,
      threadId: "1700000000.000100",
    });
    const threaded = { ...slack, threadId: "1700000000.000001" };
    expect(facts("slack").followUp(threaded, "1700000000.000100")).toEqual(threaded);
    const topic: ConversationRef = { platform: "telegram", id: "-1001", threadId: "7" };
    expect(facts("telegram").followUp(topic, "55")).toEqual({ ...topic, replyTo: "55" });
    const tty: ConversationRef = { platform: "console", id: "tty" };
    expect(facts("console").followUp(tty, "3")).toEqual(tty);
  });

  it("an answer the whole conversation sees is top-level on Slack and a reply on Telegram", () => {
    expect(facts("slack").visibleAnswer({ platform: "slack", id: "C1", threadId: "1.2" }, "1.3")).toEqual({
      platform: "slack",
      id: "C1",
    });
    expect(facts("telegram").visibleAnswer({ platform: "telegram", id: "-1001" }, "55")).toEqual({
      platform: "telegram",
      id: "-1001",
      replyTo: "55",
    });
    expect(facts("telegram").visibleAnswer({ platform: "telegram", id: "-1001" }, undefined)).toEqual({
      platform: "telegram",
      id: "-1001",
    });
  });

  it("only Slack has a home screen; its conversation names its user", () => {
    const home = homeConversation(PLATFORM_FACTS, { platform: "slack", userId: "U0OPER" });
    expect(home).toEqual({ platform: "slack", id: "home:U0OPER" });
    expect(SLACK_PLATFORM.home?.userOf(home.id)).toBe("U0OPER");
    expect(SLACK_PLATFORM.home?.userOf("C0OPS")).toBeUndefined();
    expect(facts("telegram").home).toBeUndefined();
    expect(facts("console").home).toBeUndefined();
  });

  it("a platform the map lacks gets plain facts: flat, one post a second, the smallest message", () => {
    const plain = platformFacts(new Map(), "slack");
    const c: ConversationRef = { platform: "slack", id: "C1", threadId: "1.2" };
    expect(plain.followUp(c, "1.3")).toEqual(c);
    expect(plain.visibleAnswer(c, "1.3")).toEqual({ platform: "slack", id: "C1" });
    expect(plain.sendGapMs(c)).toBe(1_000);
    expect(plain.limits).toEqual(facts("telegram").limits);
    expect(plain.home).toBeUndefined();
  });
});

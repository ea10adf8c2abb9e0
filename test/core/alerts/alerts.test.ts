import { describe, expect, it } from "vitest";
import {
  ALERT_TTL_MS,
  alertIdOf,
  CONTENT_KEY,
  MESSAGES_KEY,
  readAlert,
  recordMessage,
} from "../../../src/core/alerts/alert.js";
import { applyOp } from "../../../src/core/alerts/buttons.js";
import { alertDigestBlocks } from "../../../src/core/alerts/posted.js";
import { clearAlert, raiseAlert, reraiseAlert } from "../../../src/core/alerts/raise.js";
import { SNOOZE_MS } from "../../../src/core/alerts/settings.js";
import { escalate, mentionsFor } from "../../../src/core/alerts/timers.js";
import type { ConversationRef } from "../../../src/core/invocation.js";
import { platformFacts } from "../../../src/core/platforms.js";
import { buttons, publicReply, text } from "../../../src/core/reply.js";
import { canDigest } from "../../../src/core/service-events/notice-digest-render.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import { PLATFORM_FACTS } from "../../../src/wiring/platforms.js";
import { replyButtons, replyText } from "../../support/core-harness.js";
import { channel, fakeClock, forEachStore, operator, stubDeps } from "../support.js";

/**
 * The alert model over both stores (the Redis one on a private server): raised once per key, one
 * change wins when two race, escalation once and never after Ack, snooze back unless resolved.
 * The delayed jobs are run directly; the clock is the test's.
 */
const ALERTS = { platform: "slack" as const, id: "C0ALERT" };
const ESCALATE = { alerts: { escalateMs: 15 * 60_000, oncall: ["slack:U0ONCALL", "telegram:@oncall_ops"] } };
const notice = (line: string) => publicReply(line, [text(line)]);

forEachStore("alerts", (get) => {
  const deps = () => stubDeps({ store: get().store, clock: get().clock, settings: ESCALATE });

  const raise = (d: ReturnType<typeof deps>, key = "runway:low:1") =>
    raiseAlert(d, {
      key,
      kind: "runway.low",
      subject: { type: "account", id: "balance" },
      severity: "critical",
      posts: [{ conversation: ALERTS, reply: notice("Balance running low"), dedupKey: `${key}:C0ALERT` }],
    });

  it("raises once per key: one record, the caller's dedup key, one escalation job", async () => {
    const d = deps();
    const first = await raise(d);
    const again = await raise(d);
    expect(again.id).toBe(first.id);
    expect(d.scheduled).toEqual([{ kind: "alert-escalate", alertId: first.id }]);
    expect(d.posted).toHaveLength(2);
    const [message] = d.posted;
    expect(replyButtons(message!.reply).map((b) => b.label)).toEqual(["Ack", "Snooze 1h", "Resolve"]);
    expect(replyText(message!.reply)).toMatch(/not acknowledged yet/);
    expect(message!.reply.alertOf).toEqual({ id: first.id, digestible: true });
  });

  it("two Acks at once, on two connections: one wins, the other is told who was first", async () => {
    const d = deps();
    const peer = stubDeps({ store: get().peer, clock: get().clock, settings: ESCALATE });
    const { id } = await raise(d);
    const other = { platform: "telegram" as const, userId: "4242", displayName: "ada" };
    const results = await Promise.all([
      applyOp(d, id, "ack", { ...operator, displayName: "olga" }),
      applyOp(peer, id, "ack", other),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.find((r) => !r.ok)?.line).toMatch(/already acknowledged/);
    const stored = await readAlert(d.store, id);
    expect(stored?.state).toBe("acknowledged");
    expect(stored?.history.filter((h) => h.what === "acknowledged")).toHaveLength(1);
  });

  it("escalates once, mentioning who is on call on that platform; never after Ack", async () => {
    const d = deps();
    const { id } = await raise(d);
    d.clock.advance(15 * 60_000);
    expect(await escalate(d, id)).toBe("escalated");
    expect(await escalate(d, id)).toBe("not needed");
    const escalations = d.posted.filter((p) => /has been open for 15 min/.test(replyText(p.reply)));
    expect(escalations).toHaveLength(1);
    expect(escalations[0]?.reply.blocks[0]).toMatchObject({
      spans: [{ mention: "U0ONCALL" }, { text: ": " }, {}, {}],
    });

    const acked = await raise(d, "runway:low:2");
    await applyOp(d, acked.id, "ack", operator);
    expect(await escalate(d, acked.id)).toBe("not needed");
  });

  it("escalates an alert told in an order's thread to the whole channel, linking the thread's message", async () => {
    // The links are the adapters' (test/adapters/*/message-link.test.ts): here, who is asked, and for what.
    const asked: { platform: string; conversation: ConversationRef; messageId: string }[] = [];
    const linker = (platform: string) => ({
      messageLink(conversation: ConversationRef, messageId: string) {
        asked.push({ platform, conversation, messageId });
        return `https://${platform}.test/${messageId}`;
      },
    });
    const d = {
      ...deps(),
      chats: new Map([
        ["slack", linker("slack")],
        ["telegram", linker("telegram")],
      ] as const),
    };
    const thread = { platform: "slack" as const, id: "C0OPS", threadId: "1700000000.000100" };
    const { id } = await raiseAlert(d, {
      key: "watch-delivery:5MTHREAD",
      kind: "delivery.unconfirmed",
      subject: { type: "order", id: "5MTHREAD" },
      severity: "warning",
      posts: [{ conversation: thread, reply: notice("No on-chain delivery confirmation for 5MTHREAD") }],
    });
    await d.store.hashSet(`alert:${id}:messages`, "slack:C0OPS:1700000000.000100", "1700000000.000200");
    await escalate(d, id);
    const escalation = d.posted.find((p) => /has been open for/.test(replyText(p.reply)));
    expect(escalation?.conversation).toEqual({ platform: "slack", id: "C0OPS" });
    expect(asked).toEqual([{ platform: "slack", conversation: thread, messageId: "1700000000.000200" }]);
    const linked = escalation?.reply.blocks
      .flatMap((b) => (b.type === "text" ? b.spans : []))
      .find((s) => s.href);
    expect(linked).toMatchObject({ text: `alert ${id}`, href: "https://slack.test/1700000000.000200" });
  });

  it("a snooze comes back after the hour unless resolved; a stale snooze job changes nothing", async () => {
    const d = deps();
    const { id } = await raise(d);
    await applyOp(d, id, "snooze", operator);
    const until = (await readAlert(d.store, id))?.snoozedUntil ?? 0;
    expect(until).toBe(d.now() + SNOOZE_MS);
    expect(d.scheduled).toContainEqual({ kind: "alert-unsnooze", alertId: id, until });
    // Not escalated while snoozed.
    expect(await escalate(d, id)).toBe("not needed");
    await reraiseAlert(d, id, until - 1);
    expect((await readAlert(d.store, id))?.state).toBe("snoozed");
    await reraiseAlert(d, id, until);
    expect((await readAlert(d.store, id))?.state).toBe("open");
    expect(d.scheduled.filter((j) => j.kind === "alert-escalate")).toHaveLength(2);

    await applyOp(d, id, "snooze", operator);
    const later = (await readAlert(d.store, id))?.snoozedUntil ?? 0;
    await applyOp(d, id, "resolve", operator);
    await reraiseAlert(d, id, later);
    expect((await readAlert(d.store, id))?.state).toBe("resolved");
  });

  it("a cleared cause resolves it once, in place of every message it has", async () => {
    const d = deps();
    const { id } = await raise(d);
    await d.store.hashSet(`alert:${id}:messages`, "slack:C0ALERT", "1700000000.000100");
    expect((await clearAlert(d, id, "balance back to 500 TRX"))?.state).toBe("resolved");
    expect(await clearAlert(d, id, "again")).toBeNull();
    const edits = d.posted.filter((p) => p.reply.replaces === "1700000000.000100");
    expect(edits).toHaveLength(1);
    expect(replyText(edits[0]!.reply)).toMatch(
      /resolved at .*: the cause cleared \(balance back to 500 TRX\)/,
    );
    expect(replyButtons(edits[0]!.reply)).toEqual([]);
  });
});

describe("alert pieces", () => {
  it("an alert's id is 12 letters and digits, the same for the same key", () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => alertIdOf(`runway:low:${i}`));
    expect(ids.filter((id) => !/^[A-Za-z0-9]{12}$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(alertIdOf("runway:low:7")).toBe(ids[7]);
  });

  it("mentions: Slack users and groups as ids, Telegram as @username, each on its own platform", () => {
    const oncall = ["slack:U0ONCALL", "slack:S0TEAM", "telegram:@oncall_ops"];
    expect(mentionsFor(oncall, platformFacts(PLATFORM_FACTS, "slack"))).toEqual([
      { text: "@U0ONCALL", mention: "U0ONCALL" },
      { text: " " },
      { text: "@S0TEAM", mention: "S0TEAM" },
    ]);
    expect(mentionsFor(oncall, platformFacts(PLATFORM_FACTS, "telegram"))).toEqual([{ text: "@oncall_ops" }]);
  });

  it("an alert whose only buttons are its own folds into a digest; one with a Stop Host Mode button does not", () => {
    const own = { ...notice("a"), blocks: [text("a"), buttons({ label: "Ack", token: "t" })] };
    expect(canDigest({ ...own, alertOf: { id: "abcdefghijkl", digestible: true } })).toBe(true);
    expect(canDigest({ ...own, alertOf: { id: "abcdefghijkl", digestible: false } })).toBe(false);
    expect(canDigest(own)).toBe(false);
  });

  it("a digest of alerts carries Ack all / Snooze all 1h / Resolve all for the alerts it lists", async () => {
    const d = stubDeps();
    const replies = ["abcdefghijk1", "abcdefghijk2", "abcdefghijk1"].map((id) => ({
      ...notice(id),
      alertOf: { id, digestible: true },
    }));
    const blocks = await alertDigestBlocks(d, channel, [...replies, notice("not an alert")]);
    const labels = blocks.flatMap((b) => (b.type === "buttons" ? b.buttons.map((x) => x.label) : []));
    expect(labels).toEqual(["Ack all 2", "Snooze all 1h", "Resolve all"]);
  });
});

describe("alert storage", () => {
  it("an alert nobody touches leaves nothing behind after its TTL: record, message ids and contents", async () => {
    const clock = fakeClock();
    const store = createMemoryStore({ now: clock.now });
    const d = stubDeps({ store, clock, settings: ESCALATE });
    const alert = await raiseAlert(d, {
      key: "runway:low:ttl",
      kind: "runway.low",
      subject: { type: "account", id: "balance" },
      severity: "critical",
      posts: [{ conversation: ALERTS, reply: notice("Balance running low") }],
    });
    await recordMessage(store, alert.id, ALERTS, "1700000000.000100");
    expect(await store.hashGetAll(CONTENT_KEY(alert.id))).not.toEqual({});
    expect(await store.hashGetAll(MESSAGES_KEY(alert.id))).not.toEqual({});
    clock.advance(ALERT_TTL_MS + 1);
    expect(await readAlert(store, alert.id)).toBeNull();
    expect(await store.hashGetAll(CONTENT_KEY(alert.id))).toEqual({});
    expect(await store.hashGetAll(MESSAGES_KEY(alert.id))).toEqual({});
  });
});

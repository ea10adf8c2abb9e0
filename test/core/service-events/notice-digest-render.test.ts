import { describe, expect, it } from "vitest";
import { SLACK_PLATFORM } from "../../../adapters/slack/platform.js";
import { TELEGRAM_PLATFORM } from "../../../adapters/telegram/platform.js";
import { renderDelegationConfirmed } from "../../../src/core/energy/energy-notices-render.js";
import { renderHostPaused } from "../../../src/core/host/host-notices-render.js";
import { buttons, file, publicReply, text } from "../../../src/core/reply.js";
import {
  canDigest,
  digestBudget,
  digestCost,
  renderNoticeDigest,
} from "../../../src/core/service-events/notice-digest-render.js";
import { asAlert } from "../../../src/core/service-events/notifications-render.js";
import type { DelegationConfirmed } from "../../../src/service/webhook-events.js";
import { replyText } from "../../support/core-harness.js";

const EXPLORER = "https://tronscan.org/#/transaction/";
const hash = (i: number) => i.toString(16).padStart(64, "0");
const delivery = (i: number) =>
  renderDelegationConfirmed(
    {
      event: "delegation.confirmed",
      delivery_id: String(i),
      order_id: `5M${i}`,
      receive_address: "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW",
      energy_amount: 65_050,
      tx_hashes: [hash(i)],
    } as DelegationConfirmed,
    EXPLORER,
  );

describe("digest of waiting notices", () => {
  it("counts one kind in its title and lists every order with its linked hash", () => {
    const digest = renderNoticeDigest([1, 2, 3].map(delivery), SLACK_PLATFORM.limits);
    expect(digest.summary).toBe("3 deliveries confirmed");
    const shown = replyText(digest);
    // The hash is shown shortened; its link carries it whole.
    for (const i of [1, 2, 3]) expect(shown).toContain(`(order 5M${i}) — ${hash(i).slice(0, 10)}`);
    const hrefs = digest.blocks.flatMap((b) =>
      b.type === "text" ? b.spans.flatMap((s) => s.href ?? []) : [],
    );
    expect(hrefs).toEqual([1, 2, 3].map((i) => `${EXPLORER}${hash(i)}`));
  });

  it("breaks a mixed digest down by kind and keeps the alert note once", () => {
    const paused = renderHostPaused({
      event: "host_paused",
      address: "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW",
      reason: "stopped",
      timestamp: "2025-01-01T00:00:00Z",
    });
    const digest = renderNoticeDigest(
      [asAlert(delivery(1)), asAlert(delivery(2)), asAlert(paused)],
      TELEGRAM_PLATFORM.limits,
    );
    expect(digest.summary).toBe("3 notifications: 2 deliveries confirmed, 1 Host Mode pause");
    const notes = digest.blocks
      .filter((b) => b.type === "context")
      .map((b) => replyText({ ...digest, blocks: [b] }));
    expect(notes.filter((n) => n.includes("alert channel"))).toHaveLength(1);
  });

  it("never folds files or buttons, and a Telegram digest holds far fewer notices than a Slack one", () => {
    const f = file({ filename: "s.csv", contentType: "text/csv", bytes: new Uint8Array([1]) });
    expect(canDigest(publicReply("file", [f]))).toBe(false);
    expect(canDigest(publicReply("b", [buttons({ label: "Stop", token: "t" })]))).toBe(false);
    expect(canDigest(publicReply("t", [text("x")]))).toBe(true);
    const perMessage = (budget: number) => Math.floor(budget / digestCost(delivery(1)));
    expect(perMessage(digestBudget(TELEGRAM_PLATFORM.limits))).toBeGreaterThanOrEqual(10);
    expect(perMessage(digestBudget(SLACK_PLATFORM.limits))).toBeGreaterThan(
      8 * perMessage(digestBudget(TELEGRAM_PLATFORM.limits)),
    );
  });
});

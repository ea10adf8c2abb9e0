import { describe, expect, it } from "vitest";
import { findOrigin } from "../../../src/core/origins.js";
import type { FakeSlackMessage } from "../../fakes/slack-api.js";
import { freshAddress, NOON } from "../../support/spend-harness.js";
import {
  buttonLabels,
  CHANNEL,
  messageText,
  OPERATOR,
  type SlackHarness,
  startSlackHarness,
  waitFor,
} from "./harness.js";
import { fileShareEventBody } from "./native-payloads.js";

/**
 * Payout runs on Slack against the sandbox: the slash command with one row per line, a CSV shared
 * with the message `energy` (read with files.info and url_private), the quote, one orchestrator
 * order at Confirm, the quote's message edited in place with the progress and the outcome, and
 * the outcome's CSV in that message's thread, every message within Slack's limits.
 */
const addresses = (n: number) => Array.from({ length: n }, () => freshAddress("slack-payout"));

const current = (h: SlackHarness, message: FakeSlackMessage) =>
  h.fake.channelMessages(CHANNEL).find((m) => m.ts === message.ts);

async function lastQuote(h: SlackHarness): Promise<FakeSlackMessage> {
  await h.settle();
  const quote = h.fake.channelMessages(CHANNEL).at(-1);
  if (!quote) throw new Error("no quote was posted");
  return structuredClone(quote);
}

/** Slack's limits on a message: at most 50 blocks, at most 3000 characters in a section. */
function withinSlackLimits(message: FakeSlackMessage | undefined): void {
  const blocks = message?.blocks ?? [];
  expect(blocks.length).toBeLessThanOrEqual(50);
  for (const block of blocks) {
    const textOf = (block.text as { text?: string } | undefined)?.text ?? "";
    expect(textOf.length).toBeLessThanOrEqual(3000);
    for (const field of (block.fields as { text: string }[] | undefined) ?? [])
      expect(field.text.length).toBeLessThanOrEqual(2000);
  }
}

describe("slack: payout runs", () => {
  it("the quote names what each address gets; /energy 65k <one address> is a single energy quote", async () => {
    const h = await startSlackHarness({ sandbox: { now: () => Date.parse(NOON) } });
    const [a, b, c] = addresses(3);
    await h.command(`/energy ${a} 70k\n${b} 80k`);
    const quote = await lastQuote(h);
    expect(messageText(quote)).toContain("150,000 in all");
    expect(messageText(quote)).toMatch(new RegExp(`${a}\\W* 70,000`));
    expect(messageText(quote)).toMatch(new RegExp(`${b}\\W* 80,000`));
    withinSlackLimits(quote);

    await h.command(`/energy 65k ${c}`);
    const single = await lastQuote(h);
    expect(messageText(single)).toContain("Energy quote");
    expect(messageText(single)).not.toContain("payout run takes");
    expect(buttonLabels(single)[0]).toMatch(/^Confirm/);
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(1);
  });

  it("/energy with one row per line → quote → Confirm → one order; the quote's message shows the progress, then the outcome", async () => {
    // The sandbox prices by the hour of the day: at noon (the 1-hour "Peak 08-20" period) 3 × 65k cost 12.675 TRX.
    const h = await startSlackHarness({ sandbox: { now: () => Date.parse(NOON) } });
    const list = addresses(3);
    await h.command(`/energy ${list.map((a) => `${a} 65k`).join("\n")}`);
    const quote = await lastQuote(h);
    expect(messageText(quote)).toContain("Payout run quote");
    expect(messageText(quote)).toContain("3 to order");
    expect(buttonLabels(quote)).toEqual(["Confirm 12.675 TRX", "Cancel"]);
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(1);

    await h.click(quote, /^Confirm/);
    await waitFor(
      () => messageText(current(h, quote)).includes("Payout run delivered"),
      "the outcome in place",
    );
    const calls = h.sandbox.calls("orchestrator.create");
    expect(calls).toHaveLength(1);
    expect((calls[0]?.body as { items: unknown[] } | undefined)?.items).toHaveLength(3);
    const outcome = current(h, quote);
    for (const address of list) expect(messageText(outcome)).toContain(address);
    expect(buttonLabels(outcome)).toEqual([]);
    // One message for the run: the quote's, edited; nothing top-level per address.
    expect(h.fake.channelMessages(CHANNEL).filter((m) => m.threadTs === undefined)).toHaveLength(1);
    const orders = h.sandbox.energy.orders().filter((o) => list.includes(o.receiveAddress));
    expect(orders).toHaveLength(3);
    for (const order of orders) {
      expect(await findOrigin(h.store, "order", order.orderId)).toEqual({
        platform: "slack",
        id: CHANNEL,
        threadId: quote.ts,
      });
    }
  });

  it("a CSV shared with the message energy: read with files.info and url_private, 100 addresses, outcome CSV in the thread", async () => {
    const h = await startSlackHarness();
    const list = addresses(100);
    const csv = `address,amount\n${list.map((a) => `${a},61000`).join("\n")}\n`;
    const fileId = h.fake.userFile("payouts.csv", Buffer.from(csv));
    await h.post(fileShareEventBody("energy", fileId, { user: OPERATOR }));
    const quote = await lastQuote(h);
    expect(h.fake.calls("files.info")).toHaveLength(1);
    const download = h.fake.calls("url_private");
    expect(download).toHaveLength(1);
    // The fake answers url_private with a login page unless the bot token comes as a bearer.
    expect(download[0]?.status).toBe(200);
    expect(messageText(quote)).toContain("100 to order");
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(1);
    withinSlackLimits(quote);

    await h.click(quote, /^Confirm/);
    await waitFor(
      () => messageText(current(h, quote)).includes("Payout run delivered"),
      "the outcome",
      20_000,
    );
    withinSlackLimits(current(h, quote));
    expect(messageText(current(h, quote))).toContain("100 completed");
    await waitFor(
      () => h.fake.allMessages().some((m) => m.threadTs === quote.ts && (m.files?.length ?? 0) > 0),
      "the outcome CSV in the thread",
    );
    const shared = h.fake.allMessages().find((m) => m.threadTs === quote.ts && m.files);
    const content = shared?.files?.[0]?.bytes?.toString("utf8") ?? "";
    expect(content.trim().split("\n")).toHaveLength(101);
    expect(h.sandbox.calls("orchestrator.create")).toHaveLength(1);
  }, 30_000);

  it("a shared file that is not CSV gets one line, nothing is checked or ordered; a file share without a command is left alone", async () => {
    const h = await startSlackHarness();
    const fileId = h.fake.userFile("payouts.xlsx", Buffer.from("PK\u0003\u0004"), "application/vnd.ms-excel");
    await h.post(fileShareEventBody("energy", fileId, { user: OPERATOR }));
    await h.post(fileShareEventBody("here are the payouts", fileId, { user: OPERATOR }));
    await h.settle();
    const seen = h.fake.ephemerals(OPERATOR.id).map((m) => m.text);
    expect(seen).toEqual([expect.stringContaining("payouts.xlsx is not a CSV file: share a .csv file")]);
    expect(h.fake.calls("files.info")).toHaveLength(1);
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });
});

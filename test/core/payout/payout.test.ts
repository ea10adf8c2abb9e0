import { describe, expect, it } from "vitest";
import { utcDay } from "../../../src/core/activity/facts.js";
import { readAudit } from "../../../src/core/audit-log.js";
import { renderDigest } from "../../../src/core/digest/digest-render.js";
import { buildDigest } from "../../../src/core/digest/summary.js";
import type { SharedFile } from "../../../src/core/invocation.js";
import { findOrigin } from "../../../src/core/origins.js";
import type { Reply } from "../../../src/core/reply.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { readWatch } from "../../../src/core/watch/state.js";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening/demo-addresses.js";
import { requestIdempotencyKey } from "../../../src/service/idempotency.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import type { Store } from "../../../src/store/store.js";
import { admin, channel, operator, replyButtons, replyText, viewer } from "../../support/core-harness.js";
import { freshAddress, type SpendHarness, tokenOf, useSpendHarness } from "../../support/spend-harness.js";

const spend = useSpendHarness();
/** 1-hour "Peak 08-20" price of the sandbox at noon: 65 SUN per energy. */
const PRICE_SUN = 65;

const addresses = (n: number, tag = "payout") => Array.from({ length: n }, () => freshAddress(tag));

async function keyOf(h: SpendHarness, token: string): Promise<string> {
  const raw = await h.store.get(`action:${token}`);
  return requestIdempotencyKey((JSON.parse(raw ?? "{}") as { confirmationId: string }).confirmationId);
}

const text = (reply: Reply | undefined) =>
  replyText(reply ?? { blocks: [], summary: "", visibility: "public" });

const outcomeOf = (h: SpendHarness, key: string) =>
  h.notifications.find((n) => n.dedupKey === `payout-outcome:${key}`)?.reply;

function csvFile(body: string, name = "payouts.csv"): SharedFile {
  const bytes = new TextEncoder().encode(body);
  return { name, mimeType: "text/csv", sizeBytes: bytes.byteLength, bytes };
}

describe("payout run: the quote", () => {
  it("energy <amount> <address> …: one quote for every address, one deny-list batch call, no lookup", async () => {
    const h = await spend.setup();
    const list = addresses(3);
    const reply = await h.run(operator, `energy 65k ${list.join(" ")}`);
    const body = replyText(reply);
    expect(body).toContain("Payout run quote");
    expect(body).toContain("Addresses: 3 to order");
    expect(body).toContain("Energy: 195,000 in all");
    expect(body).toContain(`Cost: ${(3 * 65_000 * PRICE_SUN) / SUN_PER_TRX} TRX`);
    expect(replyButtons(reply).map((b) => b.label)).toEqual(["Confirm 12.675 TRX", "Cancel"]);
    const batch = h.sandbox.calls("compliance.batch");
    expect(batch).toHaveLength(1);
    expect((batch[0]?.body as { addresses: string[] } | undefined)?.addresses).toEqual(list);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
    expect(h.sandbox.calls("orchestrator.create")).toEqual([]);
  });

  it("energy ⏎ lines: names every row left out with its reason, and quotes the rest", async () => {
    const h = await spend.setup();
    const [a, b, c] = addresses(3);
    const typo = `${(a ?? "").slice(0, 33)}${(a ?? "").endsWith("a") ? "b" : "a"}`;
    const lines = [
      "energy bandwidth off",
      `${a} 65k`,
      `${b},131000`,
      `${a} 70k`,
      `${typo} 65k`,
      "hello 65k",
      `${c} 5k`,
      `${DEMO_ADDRESSES.sanctioned} 65k`,
    ];
    const reply = await h.run(operator, lines.join("\n"));
    const body = replyText(reply);
    expect(body).toContain("Addresses: 2 to order, 5 left out");
    expect(body).toContain("Duplicate: line 4 (of line 2)");
    expect(body).toContain("Bad checksum (look for a typo): line 5");
    expect(body).toContain("Not a TRON address: line 6");
    expect(body).toContain("Amount out of range (61,000 to 50,000,000 each): line 7 (5,000)");
    expect(body).toMatch(/On the deny list \(aml_risk\): line 8/);
    expect(body).toContain("Options: bandwidth off");
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(1);
  });

  it("a CSV file shared with energy: header optional, options as words", async () => {
    const h = await spend.setup();
    const [a, b] = addresses(2);
    const file = csvFile(`address,amount\n${a},65000\n"${b}","1.2m"\n`);
    const reply = await h.core.handle({
      kind: "command",
      actor: operator,
      conversation: channel,
      text: "energy activation off",
      file,
    });
    const body = replyText(reply);
    expect(body).toContain("Addresses: 2 to order");
    expect(body).toContain("Energy: 1,265,000 in all (1 hour, through the orchestrator, 3 energy orders)");
    expect(body).toContain("Options: activation off");
  });

  it.each([
    [{ name: "payouts.xlsx", sizeBytes: 10, bytes: new Uint8Array(10) }, "payouts.xlsx is not a CSV file"],
    [{ name: "big.csv", sizeBytes: 70_000 }, "big.csv is too large (69 KB)"],
    // The adapters download up to 512 KB now (a watch file): the payout keeps its own 64 KB.
    [
      { name: "big.csv", sizeBytes: 70_000, bytes: new Uint8Array(70_000).fill(0x41) },
      "big.csv is too large (69 KB)",
    ],
    [{ name: "bad.csv", sizeBytes: 2, bytes: new Uint8Array([0xff, 0xfe]) }, "bad.csv is not UTF-8 text"],
    [{ name: "x.csv", sizeBytes: 0, unreadable: "Slack said file_not_found" }, "could not be read"],
  ] as [SharedFile, string][])("a file refused as a whole: %s", async (file, expected) => {
    const h = await spend.setup();
    const reply = await h.core.handle({
      kind: "command",
      actor: operator,
      conversation: channel,
      text: "energy",
      file,
    });
    expect(reply.visibility).toBe("private");
    expect(reply.summary).toContain(expected);
    expect(reply.summary).toContain("share a .csv file of address,amount rows");
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });

  it("nothing left to order: no button, nothing ordered", async () => {
    const h = await spend.setup();
    const reply = await h.run(operator, `energy\n${DEMO_ADDRESSES.sanctioned} 65k\nnope 65k`);
    expect(reply.summary).toContain("Nothing to order");
    expect(replyButtons(reply)).toEqual([]);
  });

  it("one line is not a run; a viewer cannot quote one", async () => {
    const h = await spend.setup();
    const [a] = addresses(1);
    expect((await h.run(operator, `energy\n${a} 65k`)).summary).toContain(
      "a payout run takes 2 to 100 addresses",
    );
    expect((await h.run(viewer, `energy 65k ${a} ${a}`)).summary).toMatch(/operator/);
  });

  it("energy 65k <one address> is the single energy order it plainly is, the same as energy <address> 65k", async () => {
    const h = await spend.setup();
    const [a] = addresses(1);
    const amountFirst = await h.run(operator, `energy 65k ${a}`);
    const addressFirst = await h.run(operator, `energy ${a} 65k`);
    expect(amountFirst.summary).toMatch(/^Energy quote: 65,000 energy to /);
    expect(amountFirst.summary).toBe(addressFirst.summary);
    expect(replyButtons(amountFirst).map((b) => b.label)).toEqual(
      replyButtons(addressFirst).map((b) => b.label),
    );
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });

  it("the quote names what each address gets: every address with its amount up to 10", async () => {
    const h = await spend.setup();
    const [a, b] = addresses(2);
    const body = replyText(await h.run(operator, `energy\n${a} 70k\n${b} 80k`));
    expect(body).toContain(`Each address:\n${a} 70,000\n${b} 80,000`);
    expect(body).not.toContain("Amounts:");
  });

  it("beyond 10 addresses the quote names the distinct amounts with their counts", async () => {
    const h = await spend.setup();
    const list = addresses(12);
    const lines = list.map((a, i) => `${a} ${i < 2 ? "131k" : "65k"}`);
    const body = replyText(await h.run(operator, `energy\n${lines.join("\n")}`));
    expect(body).toContain("Amounts: 65,000 × 10; 131,000 × 2");
    expect(body).not.toContain("Each address:");
    expect(body).not.toContain(list[0]);
  });

  it("more than 100 addresses and a total above 50,000,000 are left out, the quote still fits a message", async () => {
    const h = await spend.setup();
    const list = addresses(105);
    const reply = await h.run(operator, `energy 65k ${list.join(" ")}`);
    const body = replyText(reply);
    expect(body).toContain("Addresses: 100 to order, 5 left out");
    expect(body).toContain(
      "More than 100 addresses: address 101, address 102, address 103, address 104, address 105",
    );
    const longest = Math.max(...reply.blocks.map((b) => JSON.stringify(b).length));
    expect(longest).toBeLessThan(3000);
    expect(body.length).toBeLessThan(4096);
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(1);
    const [a, b, c] = addresses(3);
    const total = await h.run(operator, `energy\n${a} 30m\n${b} 15m\n${c} 10m`);
    expect(replyText(total)).toContain("The run's total would pass 50,000,000 energy: line 4");
  });
});

describe("payout run: caps and approval on the run's total", () => {
  it("OPS_MAX_ORDER_TRX applies to the total, not to each address", async () => {
    const h = await spend.setup({ settings: { maxOrderTrx: "10" } });
    const reply = await h.run(operator, `energy 65k ${addresses(3).join(" ")}`);
    expect(reply.summary).toBe(
      "This order would cost 12.675 TRX, above the cap of 10 TRX per order (OPS_MAX_ORDER_TRX).",
    );
  });

  it("the daily limit is reserved atomically at Confirm for the whole run", async () => {
    const h = await spend.setup({ settings: { dailyLimitTrx: "15" } });
    const first = await h.run(operator, `energy 65k ${addresses(2).join(" ")}`);
    const second = await h.run(operator, `energy 65k ${addresses(2).join(" ")}`);
    await h.click(operator, tokenOf(first, /^Confirm/));
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(2 * 65_000 * PRICE_SUN);
    const refused = await h.click(operator, tokenOf(second, /^Confirm/));
    expect(refused.summary).toContain(
      "Not ordered: This order would cost 8.45 TRX, but only 6.55 TRX is left today",
    );
    expect(h.sandbox.calls("orchestrator.create")).toHaveLength(1);
  });

  it("a run at or above OPS_APPROVAL_TRX asks a second person, then places one order", async () => {
    const h = await spend.setup({ settings: { approvalTrx: "10" } });
    const list = addresses(3);
    const quoteReply = await h.run(operator, `energy 65k ${list.join(" ")}`);
    const request = await h.click(operator, tokenOf(quoteReply, /^Confirm/));
    expect(request.summary).toContain("Approval needed");
    expect(replyText(request)).toContain("a payout run of 195,000 energy to 3 addresses");
    expect(h.sandbox.calls("orchestrator.create")).toEqual([]);
    const approved = await h.click(admin, tokenOf(request, "Approve"));
    expect(replyText(approved)).toContain("Payout run");
    const calls = h.sandbox.calls("orchestrator.create");
    expect(calls).toHaveLength(1);
    expect((calls[0]?.body as { items: unknown[] } | undefined)?.items).toHaveLength(3);
    // Every deny-list read (quote, Confirm, approval, approved Confirm) is one batch call for the run.
    for (const call of h.sandbox.calls("compliance.batch"))
      expect((call.body as { addresses: string[] }).addresses).toEqual(list);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
  });
});

describe("payout run: Confirm, progress, outcome", () => {
  it("one orchestrator order with every address as an item; progress, then every outcome", async () => {
    const h = await spend.setup();
    const list = addresses(3);
    const q = await h.run(operator, `energy 65k ${list.join(" ")} bandwidth 5000 activation off`);
    const confirm = tokenOf(q, /^Confirm/);
    const key = await keyOf(h, confirm);
    const placed = await h.click(operator, confirm);
    expect(replyText(placed)).toContain("Payout run");
    expect(replyButtons(placed).map((b) => b.label)).toEqual(["Cancel queued addresses"]);
    const calls = h.sandbox.calls("orchestrator.create");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers["x-idempotency-key"]).toBe(key);
    expect(calls[0]?.body).toEqual({
      items: list.map((receiveAddress) => ({ receiveAddress, amount: 65_000 })),
      defaults: { bandwidthAmount: 5000, activation: false },
    });
    await h.waitFor(() => outcomeOf(h, key) !== undefined, "the run's outcome");
    const outcome = text(outcomeOf(h, key));
    expect(outcome).toContain("Payout run delivered");
    expect(outcome).toContain("3 completed");
    expect(outcome).toContain("195,000 of 195,000 energy delegated");
    for (const address of list) expect(outcome).toContain(`${address} completed: 65,000 of 65,000`);
    const orders = h.sandbox.energy.orders().filter((o) => list.includes(o.receiveAddress));
    expect(orders).toHaveLength(3);
    for (const order of orders) {
      expect(await findOrigin(h.store, "order", order.orderId)).toEqual(channel);
    }
    // OPS_AUTO_WATCH: the run's addresses are watched by the ordering conversation, no lookup each.
    for (const address of list) expect(await readWatch(h.store, channel, address)).toBeTruthy();
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
    await h.settle();
    const audit = await readAudit(h.store, 10);
    const runEntries = audit.filter((e) => e.message?.startsWith("payout run"));
    expect(runEntries.map((e) => e.message?.split(" (")[0])).toEqual([
      "payout run final",
      "payout run accepted",
    ]);
    expect(runEntries[1]?.addresses).toEqual(list);
    // The digest counts the run as one spend with its addresses, and the energy it delivered.
    const digest = replyText(renderDigest(await buildDigest(h.deps, utcDay(h.clock.now()))));
    expect(digest).toContain("payout runs 12.675 TRX (1)");
    expect(digest).toContain("Payout runs: 1 (3 addresses), 195,000 energy delivered");
  });

  it("an address put on the deny list after the quote is left out at Confirm: the run quoted again without it (issue 39)", async () => {
    const h = await spend.setup();
    const list = addresses(3);
    const q = await h.run(operator, `energy 65k ${list.join(" ")}`);
    h.sandbox.screening.setCategory(list[1] ?? "", "usdt_frozen");
    const again = await h.click(operator, tokenOf(q, /^Confirm/));
    expect(again.summary).toContain("Now on the deny list");
    expect(again.summary).toContain(list[1]);
    expect(replyText(again)).toContain("Left out (1), not ordered:");
    expect(replyText(again)).toContain("On the deny list (usdt_frozen)");
    expect(replyText(again)).toContain("Addresses: 2");
    expect(replyButtons(again).map((b) => b.label)).toEqual([expect.stringMatching(/^Confirm /), "Cancel"]);
    expect(h.sandbox.calls("orchestrator.create")).toEqual([]);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(0);
    await h.click(operator, tokenOf(again, /^Confirm/));
    const [call] = h.sandbox.calls("orchestrator.create");
    const sent = JSON.stringify(call);
    expect(sent).toContain(list[0]);
    expect(sent).toContain(list[2]);
    expect(sent).not.toContain(list[1]);
  });

  it("an unknown outcome is looked up by the key: never accepted → says so in place, the hold given back", async () => {
    const h = await spend.setup();
    const q = await h.run(operator, `energy 65k ${addresses(2).join(" ")}`);
    const confirm = tokenOf(q, /^Confirm/);
    const key = await keyOf(h, confirm);
    h.sandbox.inject("orchestrator.create", {
      kind: "reply",
      reply: { status: 500, json: { detail: { code: 5000, msg: "Internal error" } }, headers: {} },
    });
    const unknown = await h.click(operator, confirm);
    expect(replyText(unknown)).toContain("I will look it up by its key");
    expect(replyButtons(unknown)).toEqual([]);
    await h.waitFor(() => outcomeOf(h, key) !== undefined, "the lookup's outcome");
    expect(outcomeOf(h, key)?.summary).toBe(
      `The orchestrator has no payout run with key ${key}: it was never accepted, so nothing was ordered or charged.`,
    );
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(0);
  });

  it("a double click and a second Confirm place one order", async () => {
    const h = await spend.setup();
    const q = await h.run(operator, `energy 65k ${addresses(2).join(" ")}`);
    const confirm = tokenOf(q, /^Confirm/);
    const [one, two] = await Promise.all([h.click(operator, confirm), h.click(operator, confirm)]);
    expect([one.summary, two.summary].filter((s) => s.startsWith("Payout run"))).toHaveLength(1);
    expect(h.sandbox.calls("orchestrator.create")).toHaveLength(1);
  });

  it("more than 10 addresses: a summary, and the outcome as a CSV file in the thread", async () => {
    const h = await spend.setup();
    const list = addresses(12);
    const q = await h.run(operator, `energy 65k ${list.join(" ")}`);
    const confirm = tokenOf(q, /^Confirm/);
    const key = await keyOf(h, confirm);
    h.sandbox.energy.failOrchestratorAddress(list[4] ?? "", { energy: "failed" });
    await h.click(operator, confirm);
    await h.waitFor(() => outcomeOf(h, key) !== undefined, "the run's outcome");
    const outcome = text(outcomeOf(h, key));
    expect(outcome).toContain("Payout run finished");
    expect(outcome).toContain("11 completed · 1 failed");
    expect(outcome).toContain(`Not completed:\n${list[4]} failed: 0 of 65,000`);
    expect(outcome).toContain("CSV file");
    await h.waitFor(() => h.notifications.some((n) => n.dedupKey === `payout-csv:${key}`), "the CSV");
    const csv = h.notifications.find((n) => n.dedupKey === `payout-csv:${key}`)?.reply;
    const block = csv?.blocks.find((b) => b.type === "file");
    const content = block?.type === "file" ? new TextDecoder().decode(block.file.bytes) : "";
    const rows = content.trim().split("\n");
    expect(rows[0]).toContain("address,requested,delegated,status");
    expect(rows).toHaveLength(13);
    expect(rows.find((r) => r.startsWith(list[4] ?? "-"))).toContain(",65000,0,failed,");
    // The hold became what was charged: the 11 addresses delivered, not the 12 quoted.
    await h.settle();
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(11 * 65_000 * PRICE_SUN);
    const [final] = await readAudit(h.store, 1);
    expect(final?.message).toContain("715000 of 780000 energy delegated; charged 46.475 TRX");
  });

  it("Cancel stops what is still queued: one cancel call, the outcome names the cancelled addresses", async () => {
    const h = await spend.setup({ sandbox: { energy: { orchestratorStepMs: 200 } } });
    const list = addresses(8);
    const q = await h.run(operator, `energy 65k ${list.join(" ")}`);
    const confirm = tokenOf(q, /^Confirm/);
    const key = await keyOf(h, confirm);
    const placed = await h.click(operator, confirm);
    const cancelToken = tokenOf(placed, "Cancel queued addresses");
    expect((await h.click(viewer, cancelToken)).summary).toMatch(/operator/);
    const cancelled = await h.click(operator, cancelToken);
    expect(replyText(cancelled)).toMatch(/Cancel asked by .*: 8 queued addresses cancelled/);
    expect(replyButtons(cancelled)).toEqual([]);
    expect((await h.click(operator, cancelToken)).summary).toMatch(/Already handled/i);
    expect(h.sandbox.calls("orchestrator.cancel")).toHaveLength(1);
    await h.waitFor(() => outcomeOf(h, key) !== undefined, "the run's outcome");
    expect(text(outcomeOf(h, key))).toContain("8 cancelled");
  });

  it("a cancel the orchestrator did not take: one line for the presser, the button still works; the second press cancels, once", async () => {
    const h = await spend.setup({
      sandbox: { energy: { orchestratorStepMs: 1_000 } },
      client: { maxAttempts: 1 },
    });
    const q = await h.run(operator, `energy 65k ${addresses(8).join(" ")}`);
    const cancelToken = tokenOf(await h.click(operator, tokenOf(q, /^Confirm/)), "Cancel queued addresses");
    h.sandbox.inject("orchestrator.cancel", {
      kind: "reply",
      reply: { status: 503, json: { detail: { code: 5000, msg: "Unavailable" } }, headers: {} },
    });

    const failed = await h.click(operator, cancelToken);
    // For the presser only, in place of nothing: the progress message keeps its Cancel button.
    expect(failed).toMatchObject({ visibility: "private" });
    expect(failed.replacesOriginal).toBeUndefined();
    expect(failed.summary).toMatch(
      /^The cancel did not reach the orchestrator \(The service had a problem \(HTTP 503\).*\); the run goes on\. Key .*\. The button still works: press it again to retry\.$/,
    );
    expect(failed.summary).not.toContain("\n");

    const cancelled = await h.click(operator, cancelToken);
    expect(replyText(cancelled)).toMatch(/Cancel asked by .*: 8 queued addresses cancelled/);
    expect(replyButtons(cancelled)).toEqual([]);
    expect((await h.click(operator, cancelToken)).summary).toMatch(/Already handled/i);
    expect(h.sandbox.calls("orchestrator.cancel")).toHaveLength(2);
  });

  it("a cancel the store could not serve: one line, nothing sent to the orchestrator, the button still works", async () => {
    const memory = createMemoryStore();
    let failRunRead = false;
    const store: Store = {
      ...memory,
      async get(key) {
        if (failRunRead && key.startsWith("payout-run:")) {
          failRunRead = false;
          throw new Error("connection lost");
        }
        return memory.get(key);
      },
    };
    const h = await spend.setup({ store, sandbox: { energy: { orchestratorStepMs: 1_000 } } });
    const q = await h.run(operator, `energy 65k ${addresses(8).join(" ")}`);
    const cancelToken = tokenOf(await h.click(operator, tokenOf(q, /^Confirm/)), "Cancel queued addresses");

    failRunRead = true;
    const failed = await h.click(operator, cancelToken);
    expect(failed).toMatchObject({ visibility: "private" });
    expect(failed.replacesOriginal).toBeUndefined();
    expect(failed.summary).toMatch(
      /^Storage did not answer, so the cancel was not sent; the run goes on\. Key .*\. The button still works: press it again to retry\.$/,
    );
    expect(h.sandbox.calls("orchestrator.cancel")).toEqual([]);

    const cancelled = await h.click(operator, cancelToken);
    expect(replyText(cancelled)).toMatch(/Cancel asked by .*: 8 queued addresses cancelled/);
    expect(h.sandbox.calls("orchestrator.cancel")).toHaveLength(1);
  });

  it("insufficient_balance mid-run: the remaining addresses are not attempted, the outcome says so", async () => {
    const h = await spend.setup();
    const list = addresses(10);
    const q = await h.run(operator, `energy 65k ${list.join(" ")}`);
    const confirm = tokenOf(q, /^Confirm/);
    h.sandbox.account.balanceSun = 15 * SUN_PER_TRX;
    const key = await keyOf(h, confirm);
    await h.click(operator, confirm);
    await h.waitFor(() => outcomeOf(h, key) !== undefined, "the run's outcome");
    const outcome = text(outcomeOf(h, key));
    expect(outcome).toMatch(/\d+ completed · \d+ insufficient balance/);
  });
});

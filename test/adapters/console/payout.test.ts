import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type ConsoleAdapter, createConsoleAdapter } from "../../../adapters/console/index.js";
import type { Actor, ConversationRef } from "../../../src/core/invocation.js";
import { freshAddress, useSpendHarness } from "../../support/spend-harness.js";
import { csvFile } from "./csv-file.js";

/**
 * A payout run on the console against the sandbox: `energy @payouts.csv` reads the file, the
 * quote's buttons are numbered, `1` confirms, and the run's progress and outcome are printed as
 * the poll reports them (the console has no message to edit).
 */
const me: Actor = { platform: "console", userId: "alice" };
const session: ConversationRef = { platform: "console", id: "local" };
const spend = useSpendHarness({ settings: { operators: ["slack:U0OPER", "console:alice"] } });

let adapter: ConsoleAdapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

const csvOf = (rows: string[]): string => csvFile("payouts.csv", rows);

describe("console: a payout run from a file", () => {
  it("energy @payouts.csv → one quote, 1 confirms one order, the outcome is printed", async () => {
    const h = await spend.setup();
    const [a, b] = [freshAddress("console"), freshAddress("console")];
    const path = csvOf(["address,amount", `${a},65000`, `${b},65k`, `${a},70k`]);
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    adapter = createConsoleAdapter({ input, output, core: h.core, actor: me, conversation: session });
    input.write(`energy @${path}\n`);
    await h.waitFor(() => printed.includes("[1] Confirm"), "the quote");
    expect(printed).toContain("Payout run quote");
    expect(printed).toContain("Addresses: 2 to order, 1 left out");
    expect(printed).toContain("Duplicate: line 4 (of line 2)");
    input.write("1\n");
    await h.waitFor(() => printed.includes("[1] Cancel queued addresses"), "the Confirm's answer");
    expect(printed).toContain(
      "Payout run\n==========\nAddresses: 2 (1 left out at the quote)\nProgress: 2 queued",
    );
    const [call, ...more] = h.sandbox.calls("orchestrator.create");
    expect(more).toEqual([]);
    expect(call?.body).toEqual({
      items: [
        { receiveAddress: a, amount: 65_000 },
        { receiveAddress: b, amount: 65_000 },
      ],
    });
    const confirmationKey = call?.headers["x-idempotency-key"] ?? "";
    await h.waitFor(
      () => h.notifications.some((n) => n.dedupKey === `payout-outcome:${confirmationKey}`),
      "the run's outcome",
    );
    const outcome = h.notifications.find((n) => n.dedupKey === `payout-outcome:${confirmationKey}`);
    expect(outcome?.conversation).toEqual(session);
    expect(outcome?.reply.summary).toContain("Payout run delivered: 2 addresses, 2 completed");
    expect(confirmationKey).toMatch(/^[A-Za-z0-9._:-]{12,128}$/);
    input.end();
    await adapter.finished;
  });

  it("the quote names what each address gets; energy 65k <one address> is one order's quote", async () => {
    const h = await spend.setup();
    const [a, b, c] = [freshAddress("console"), freshAddress("console"), freshAddress("console")];
    const path = csvOf([`${a},70000`, `${b},80k`]);
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    adapter = createConsoleAdapter({ input, output, core: h.core, actor: me, conversation: session });
    input.write(`energy @${path}\n`);
    await h.waitFor(() => printed.includes("[1] Confirm"), "the quote");
    expect(printed).toContain(`Each address:\n${a} 70,000\n${b} 80,000`);
    printed = "";
    input.write(`energy 65k ${c}\n`);
    await h.waitFor(() => printed.includes("[1] Confirm"), "the single quote");
    expect(printed).toContain("Energy quote");
    expect(printed).not.toContain("payout run takes");
    input.end();
    await adapter.finished;
    expect(h.sandbox.calls("orchestrator.create")).toEqual([]);
  });

  it("a path that cannot be read gets one line saying what is accepted", async () => {
    const h = await spend.setup();
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    adapter = createConsoleAdapter({ input, output, core: h.core, actor: me, conversation: session });
    input.end("energy @/nonexistent/payouts.csv\n");
    await adapter.finished;
    expect(printed.trim()).toBe(
      "the file could not be read (no such file): share a .csv file of address,amount rows (header optional, UTF-8, at most 100 rows and 64 KB)",
    );
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
  });
});

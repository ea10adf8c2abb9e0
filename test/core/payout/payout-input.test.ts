import { describe, expect, it } from "vitest";
import type { SharedFile } from "../../../src/core/invocation.js";
import { readPayoutCsv } from "../../../src/core/payout/payout-csv.js";
import { readPayoutInput } from "../../../src/core/payout/payout-input.js";
import { describeOptions, parseOptionWords } from "../../../src/core/payout/payout-options.js";
import { checkRows } from "../../../src/core/payout/payout-plan.js";
import {
  LEFT_OUT_MAX_CHARS,
  leftOutLines,
  packLines,
  SECTION_MAX_CHARS,
} from "../../../src/core/payout/payout-render.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";

const [A, B, C] = ["in-a", "in-b", "in-c"].map((s) => tronAddress(`payout-input-${s}`)) as [
  string,
  string,
  string,
];

const csv = (body: string, name = "p.csv"): SharedFile => {
  const bytes = new TextEncoder().encode(body);
  return { name, sizeBytes: bytes.byteLength, bytes };
};

describe("payout input: which lines are payout runs", () => {
  it("leaves the single order and its variants alone", () => {
    expect(readPayoutInput(`energy ${A} 65k`, undefined)).toBeUndefined();
    expect(readPayoutInput(`energy ${A} 65k cheapest`, undefined)).toBeUndefined();
    expect(readPayoutInput("energy", undefined)).toBeUndefined();
    expect(readPayoutInput("energy 65k", undefined)).toBeUndefined();
  });

  it("energy <amount> <address> …, through /ops and with options after the addresses", () => {
    const read = readPayoutInput(
      `ops energy 1.2m ${A} ${B} bandwidth 5000 bandwidth 5m activation off`,
      undefined,
    );
    expect(read).toEqual({
      ok: true,
      value: {
        source: "words",
        rows: [
          { where: "address 1", address: A, amount: "1.2m" },
          { where: "address 2", address: B, amount: "1.2m" },
        ],
        options: { bandwidthAmount: 5000, bandwidthPeriod: "5m", activation: false },
      },
    });
  });

  it("lines: `address amount`, `address,amount`, `address;amount`, tabs, CRLF; a first row on the command line", () => {
    const read = readPayoutInput(`energy ${A} 65k\r\n${B},"65,000"\n\n${C}\t131k`, undefined);
    expect(read?.ok && read.value.rows).toEqual([
      { where: "line 1", address: A, amount: "65k" },
      { where: "line 2", address: B, amount: "65,000" },
      { where: "line 4", address: C, amount: "131k" },
    ]);
  });

  it("a bad option word is one line saying what is accepted; an @path off the console too", () => {
    expect(readPayoutInput(`energy 65k ${A} ${B} bandwidth 7`, undefined)).toEqual({
      ok: false,
      error: 'bandwidth "7" is not understood: use bandwidth on|off|400|5000|5m|1h, activation on|off',
    });
    expect(readPayoutInput("energy @p.csv", undefined)?.ok).toBe(false);
  });

  it("options read back in the quote", () => {
    const options = parseOptionWords(["bandwidth", "off", "activation", "on"]);
    expect(options.ok && describeOptions(options.value)).toMatch(/^bandwidth off · activation on; otherwise/);
  });
});

describe("payout CSV", () => {
  it("header optional, BOM and quotes removed, physical line numbers kept", () => {
    const rows = readPayoutCsv(csv(`\uFEFFaddress,amount\n${A},65000\n\n"${B}","131k"\n`));
    expect(rows).toEqual({
      ok: true,
      value: [
        { where: "line 2", address: A, amount: "65000" },
        { where: "line 4", address: B, amount: "131k" },
      ],
    });
    expect(readPayoutCsv(csv(`${A},65000\n${B},65000`)).ok && "no header").toBe("no header");
  });

  it("an empty file is refused as a whole", () => {
    expect(readPayoutCsv(csv("address,amount\n"))).toEqual({
      ok: false,
      error:
        "p.csv has no rows: share a .csv file of address,amount rows (header optional, UTF-8, at most 100 rows and 64 KB)",
    });
  });
});

describe("payout plan: the format checks of each row", () => {
  it("names what is wrong with each row, a duplicate by the line it repeats", () => {
    const { candidates, leftOut } = checkRows([
      { where: "line 1", address: A, amount: "65k" },
      { where: "line 2", address: A, amount: "70k" },
      { where: "line 3", address: B, amount: "" },
      { where: "line 4", address: B, amount: "lots" },
      { where: "line 5", address: C, amount: "60k" },
      { where: "line 6", address: C, amount: "51m" },
      { where: "line 7", address: "", amount: "65k" },
    ]);
    expect(candidates.map((c) => [c.where, c.amount])).toEqual([["line 1", 65_000]]);
    expect(leftOut.map((l) => [l.where, l.reason, l.detail])).toEqual([
      ["line 2", "duplicate", "of line 1"],
      ["line 3", "no amount", undefined],
      ["line 4", "amount not understood (use 65000, 65k or 1.2m)", undefined],
      ["line 5", "amount out of range (61,000 to 50,000,000 each)", "60,000"],
      ["line 6", "amount out of range (61,000 to 50,000,000 each)", "51,000,000"],
      ["line 7", "no address", undefined],
    ]);
  });
});

describe("payout quote: the left-out list within one message", () => {
  it("packs reasons into sections under Slack's 3000 characters and cuts the list past its budget", () => {
    const leftOut = Array.from({ length: 300 }, (_, i) => ({
      where: `line ${i + 1}`,
      address: A,
      reason: i % 2 === 0 ? "on the deny list (aml_risk)" : `amount out of range (${i})`,
      detail: A,
    }));
    const blocks = packLines(leftOutLines(leftOut), LEFT_OUT_MAX_CHARS);
    const texts = blocks.map((b) => (b.type === "text" ? b.spans.map((s) => s.text).join("") : ""));
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(SECTION_MAX_CHARS);
    expect(texts.join("\n").length).toBeLessThanOrEqual(LEFT_OUT_MAX_CHARS + 100);
    expect(texts.join("\n")).toContain("(list cut to fit the message");
  });
});

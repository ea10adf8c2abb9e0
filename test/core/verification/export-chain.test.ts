import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { checkExportChain } from "../../../src/core/verification/export-chain.js";
import { editCell, makeExport, rowHash } from "../../support/audit-export.js";

/**
 * The export's chain re-computed as the contract fixes it: an untouched file is unaltered (in any
 * chunking, with CRLF line ends, starting mid-ledger); an edited cell names its row, a row left
 * out the row after the gap, two rows swapped the first of them; a re-hashed edit is caught by
 * the next row; a file that is no export says so. A large file streams through flat memory.
 */
const chunked = (text: string, size: number): AsyncIterable<Buffer> =>
  Readable.from(
    Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
      Buffer.from(text.slice(i * size, (i + 1) * size)),
    ),
  );
const lines = (all: string[]) => all.map((l) => `${l}\n`).join("");

describe("checkExportChain", () => {
  it("an untouched export is unaltered, whatever the chunking, with CRLF, from mid-ledger", async () => {
    const made = makeExport(40, { firstSeq: 1001, prevHash: "ab".repeat(32) });
    const expected = { unaltered: true, rows: 40, firstSeq: 1001, lastSeq: 1040, lastHash: made.lastHash };
    expect(await checkExportChain([made.csv])).toEqual(expected);
    for (const size of [1, 7, 64, 4096])
      expect(await checkExportChain(chunked(made.csv, size))).toEqual(expected);
    expect(await checkExportChain([made.csv.replaceAll("\n", "\r\n")])).toEqual(expected);
    expect(await checkExportChain([made.csv.slice(0, -1)])).toEqual(expected);
  });

  it("an export of no rows is its header alone", async () => {
    expect(await checkExportChain([makeExport(0).csv])).toEqual({
      unaltered: true,
      rows: 0,
      firstSeq: null,
      lastSeq: null,
      lastHash: "",
    });
  });

  it("an edited cell names its row", async () => {
    const made = makeExport(20);
    const edited = editCell(made, 7, 6, "999.00");
    expect(await checkExportChain([edited])).toMatchObject({ unaltered: false, rows: 6, badSeq: "7" });
    expect(((await checkExportChain([edited])) as { why: string }).why).toMatch(/hash does not match/);
  });

  it("an edited cell whose row was re-hashed is caught by the next row", async () => {
    const made = makeExport(20);
    const all = [...made.lines];
    const cells = (all[7] ?? "").split(",");
    cells[6] = "999.00";
    const upToPrev = cells.slice(0, -1).join(",");
    all[7] = `${upToPrev},${rowHash(upToPrev)}`;
    expect(await checkExportChain([lines(all)])).toMatchObject({ unaltered: false, badSeq: "8" });
  });

  it("a row left out names the row after the gap; two swapped rows name the first of them", async () => {
    const made = makeExport(20);
    const dropped = made.lines.filter((l) => !l.startsWith("12,"));
    expect(await checkExportChain([lines(dropped)])).toMatchObject({
      unaltered: false,
      rows: 11,
      badSeq: "13",
    });
    const swapped = [...made.lines];
    [swapped[5], swapped[6]] = [swapped[6] ?? "", swapped[5] ?? ""];
    expect(await checkExportChain([lines(swapped)])).toMatchObject({
      unaltered: false,
      rows: 4,
      badSeq: "6",
    });
  });

  it("a row whose seq is no number is named by the seq expected there", async () => {
    const made = makeExport(5);
    const broken = made.csv.replace(/\n3,/, "\nthree,");
    expect(await checkExportChain([broken])).toMatchObject({ unaltered: false, rows: 2, badSeq: "3" });
  });

  it("a file that is no export is named as such, never thrown", async () => {
    const made = makeExport(3);
    const cases: [string, RegExp][] = [
      ["", /empty/],
      ["hello,world\n", /header/],
      [`\uFEFF${made.csv}`, /header/],
      [made.csv.replace(/\n2,/, "\n\n2,"), /empty line/],
      [`${made.csv}not a row at all\n`, /not an export row/],
      [`${made.csv}${"x".repeat(3_000_000)}`, /too long/],
      ["%PDF-1.7\n%\xff\xfe binary", /header/],
    ];
    for (const [text, why] of cases) {
      const answer = await checkExportChain([Buffer.from(text)]);
      expect(answer.unaltered, text.slice(0, 20)).toBe(false);
      expect((answer as { why: string }).why).toMatch(why);
    }
  });

  it("100 000 rows stream through, and 200 MB of rows in flat memory", async () => {
    const header = makeExport(0).lines[0] ?? "";
    const template = (makeExport(1).lines[1] ?? "").split(",");
    const chain = (count: number, detail: string) => {
      const state = { prev: "0".repeat(64), peak: 0 };
      const before = process.memoryUsage();
      async function* generate(): AsyncGenerator<Buffer> {
        yield Buffer.from(`${header}\n`);
        for (let seq = 1; seq <= count; seq += 1) {
          const cells = [...template];
          cells[0] = String(seq);
          cells[10] = detail;
          const upToPrev = [...cells.slice(0, -2), state.prev].join(",");
          state.prev = rowHash(upToPrev);
          if (seq % 500 === 0) {
            const now = process.memoryUsage();
            const grown = now.heapUsed - before.heapUsed + (now.arrayBuffers - before.arrayBuffers);
            state.peak = Math.max(state.peak, grown);
          }
          yield Buffer.from(`${upToPrev},${state.prev}\n`);
        }
      }
      return { generate, state };
    };
    const many = chain(100_000, "fee");
    expect(await checkExportChain(many.generate())).toEqual({
      unaltered: true,
      rows: 100_000,
      firstSeq: 1,
      lastSeq: 100_000,
      lastHash: many.state.prev,
    });
    const big = chain(20_000, "x".repeat(10_000));
    expect(await checkExportChain(big.generate())).toMatchObject({ unaltered: true, rows: 20_000 });
    expect(big.state.peak).toBeLessThan(64 * 1_048_576);
  });
});

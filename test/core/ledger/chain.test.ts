import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import type { LedgerFields } from "../../../src/core/ledger/entry.js";
import { writeExport } from "../../../src/core/ledger/export.js";
import { appendToLedger, ledgerEntryOf, readDay } from "../../../src/core/ledger/ledger.js";
import { forEachStore, stubDeps } from "../support.js";

/**
 * The spend ledger's chain, checked from the outside: the CSV it exports is re-verified here by a
 * separate implementation written from the contract's words (not the ledger's own code), for two
 * writers racing, a reconciler and a live answer writing the same outcome, and a file edited,
 * shortened or reordered.
 */
const HEADER =
  "seq,at,kind,actor,requester,address,amount_trx,result,order_ids,confirmation_id,detail,prev_hash,hash";

/** The contract's rule: hash = SHA-256 of the row up to and including the comma before prev_hash, then prev_hash. */
function firstBrokenSeq(csv: string): string | undefined {
  const lines = csv.split("\n");
  expect(lines[0]).toBe(HEADER);
  let previousHash: string | undefined;
  let previousSeq: number | undefined;
  for (const line of lines.slice(1)) {
    if (line === "") continue;
    const seq = line.slice(0, line.indexOf(","));
    const hash = line.slice(-64);
    const prev = line.slice(-129, -65);
    const covered = line.slice(0, -65);
    const ok =
      createHash("sha256").update(covered, "utf8").digest("hex") === hash &&
      (previousHash === undefined || prev === previousHash) &&
      (previousSeq === undefined || Number(seq) === previousSeq + 1);
    if (!ok) return seq;
    previousHash = hash;
    previousSeq = Number(seq);
  }
  return undefined;
}

const fields = (i: number, more: Partial<LedgerFields> = {}): LedgerFields => ({
  kind: "energy",
  actor: "slack:U0OPER",
  requester: "slack:U0OPER",
  address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  amountSun: 3_250_000 + i,
  result: "ordered",
  orderIds: [`o-${i}`, `p-${i}`],
  confirmationId: `conf-${i}`,
  detail: `paid, "quoted" = fine, line\nbreak ${i}`,
  ...more,
});

forEachStore("spend ledger", (get) => {
  it("keeps one gapless chain when two writers append at once, and exports it as the contract says", async () => {
    const a = stubDeps({ store: get().store, clock: get().clock });
    const b = stubDeps({ store: get().peer, clock: get().clock });
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => appendToLedger(i % 2 === 0 ? a : b, `id-${i}`, fields(i))),
    );
    const day = await readDay(get().store, "2025-03-01");
    expect(day.map((e) => e.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(day[0]?.prevHash).toBe("0".repeat(64));

    const written = await writeExport(get().store, "2025-03-01", "2025-03-01");
    const csv = await readFile(written.path, "utf8");
    expect(written).toMatchObject({ rows: 60, firstSeq: 1, lastSeq: 60, lastHash: day.at(-1)?.hash });
    expect(firstBrokenSeq(csv)).toBeUndefined();
    const row = csv.split("\n")[1] ?? "";
    // Amount in TRX, order ids ;-separated, a quoted detail with its line break folded, no BOM.
    expect(csv.charCodeAt(0)).toBe("s".charCodeAt(0));
    expect(row).toMatch(
      /^1,2025-03-01T12:00:00\.000Z,energy,slack:U0OPER,slack:U0OPER,TR7NH\S+,3\.25\d*,ordered,o-\d+;p-\d+,conf-\d+,"paid, ""quoted"" = fine, line break \d+",0{64},[0-9a-f]{64}$/,
    );
  });

  it("writes one entry when a reconciler and the live answer record the same outcome at once", async () => {
    const a = stubDeps({ store: get().store, clock: get().clock });
    const b = stubDeps({ store: get().peer, clock: get().clock });
    const [first, second] = await Promise.all([
      appendToLedger(a, "c:same", fields(1)),
      appendToLedger(b, "c:same", fields(1, { detail: "reconciled" })),
    ]);
    expect([first.appended, second.appended].sort()).toEqual([false, true]);
    expect(first.entry).toEqual(second.entry);
    expect(await readDay(get().store, "2025-03-01")).toHaveLength(1);
    expect((await ledgerEntryOf(get().store, "c:same"))?.seq).toBe(1);
  });

  it("guards cells a spreadsheet would run as a formula", async () => {
    const deps = stubDeps({ store: get().store, clock: get().clock });
    await appendToLedger(
      deps,
      "f",
      fields(1, { detail: '=HYPERLINK("x")', requester: "@agent", actor: "+1", address: "-x" }),
    );
    const csv = await readFile((await writeExport(get().store, "2025-03-01", "2025-03-01")).path, "utf8");
    expect(csv.split("\n")[1]).toContain(`,'+1,'@agent,'-x,`);
    expect(csv.split("\n")[1]).toContain(`,"'=HYPERLINK(""x"")",`);
    expect(firstBrokenSeq(csv)).toBeUndefined();
  });

  it("breaks at the row that was edited, dropped or swapped", async () => {
    const deps = stubDeps({ store: get().store, clock: get().clock });
    for (let i = 0; i < 8; i++) await appendToLedger(deps, `r-${i}`, fields(i));
    const csv = await readFile((await writeExport(get().store, "2025-03-01", "2025-03-01")).path, "utf8");
    const lines = csv.split("\n");
    const edited = [...lines];
    edited[4] = (edited[4] ?? "").replace(",3.250003,", ",3.250004,");
    expect(edited[4]).not.toBe(lines[4]);
    expect(firstBrokenSeq(edited.join("\n"))).toBe("4");
    const dropped = lines.filter((_, i) => i !== 3);
    expect(firstBrokenSeq(dropped.join("\n"))).toBe("4");
    const swapped = [...lines];
    [swapped[5], swapped[6]] = [lines[6] ?? "", lines[5] ?? ""];
    expect(firstBrokenSeq(swapped.join("\n"))).toBe("6");
  });
});

import { createHash } from "node:crypto";

/**
 * An audit export CSV made as CONTRACT.md ("Spend ledger and audit export") fixes it, without the
 * ledger: the header, then one row per entry whose `hash` is the SHA-256 of the row up to and
 * including `prev_hash`, chained from `prevHash` (64 zeros: the first entry ever). Tests edit,
 * drop or swap its lines to make an altered copy.
 */
const EXPORT_COLUMNS =
  "seq,at,kind,actor,requester,address,amount_trx,result,order_ids,confirmation_id,detail,prev_hash,hash";

const ZERO_HASH = "0".repeat(64);
const KINDS = ["energy", "payout", "host_cycle", "screening", "refusal"] as const;

export interface MadeExport {
  /** The header and each row, without line endings. */
  lines: string[];
  csv: string;
  rows: number;
  firstSeq: number;
  lastSeq: number;
  lastHash: string;
}

/** Quotes a cell holding a comma or a quote, as a CSV writer does. */
const cell = (value: string): string => (/[",]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

export function rowHash(rowUpToPrevHash: string): string {
  return createHash("sha256").update(rowUpToPrevHash, "utf8").digest("hex");
}

export function makeExport(
  count: number,
  options: { firstSeq?: number; prevHash?: string; day?: string } = {},
): MadeExport {
  const firstSeq = options.firstSeq ?? 1;
  const day = options.day ?? "2026-11-02";
  let prev = options.prevHash ?? ZERO_HASH;
  const lines = [EXPORT_COLUMNS];
  for (let i = 0; i < count; i += 1) {
    const seq = firstSeq + i;
    const kind = KINDS[i % KINDS.length] ?? "energy";
    const cells = [
      String(seq),
      `${day}T${String(Math.floor(i / 60) % 24).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}:00.000Z`,
      kind,
      i % 3 === 0 ? "agent:ops-agent" : "slack:U0OPER",
      "slack:U0OPER",
      `TXYZopYRdj2D9XRtbG411XZZ3kM5VkA${String(i % 1000).padStart(3, "0")}`,
      kind === "refusal" ? "0" : `${(i % 7) + 1}.${String(i % 100).padStart(2, "0")}`,
      kind === "refusal" ? "refused" : "ordered",
      i % 4 === 0 ? `ord-${seq}a;ord-${seq}b` : `ord-${seq}`,
      `conf-${seq}`,
      cell(i % 5 === 2 ? `energy 65000, 1h for "payouts" — naïve ✓` : `'=SUM(A1) guarded ${seq}`),
      prev,
    ];
    const upToPrev = cells.join(",");
    const hash = rowHash(upToPrev);
    lines.push(`${upToPrev},${hash}`);
    prev = hash;
  }
  return {
    lines,
    csv: `${lines.map((l) => `${l}\n`).join("")}`,
    rows: count,
    firstSeq,
    lastSeq: firstSeq + count - 1,
    lastHash: count === 0 ? "" : prev,
  };
}

/** The file with the `seq`'s row's cell `column` (0-based) replaced, its hash left as it was. */
export function editCell(made: MadeExport, seq: number, column: number, value: string): string {
  const lines = made.lines.map((line) => {
    if (!line.startsWith(`${seq},`)) return line;
    const cells = line.split(",");
    cells[column] = value;
    return cells.join(",");
  });
  return lines.map((l) => `${l}\n`).join("");
}

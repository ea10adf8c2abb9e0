import { createHash } from "node:crypto";
import Big from "big.js";
import { SUN_PER_TRX } from "../pricing/trx.js";
import type { LedgerEntry } from "./entry.js";

/**
 * The export's row of an entry, exactly as CONTRACT.md ("Spend ledger and audit export") fixes it:
 * the row's `hash` is the SHA-256 of its text up to and including the comma before `prev_hash`,
 * followed by `prev_hash`; that is, the row without its final `,<hash>`. The ledger hashes the same
 * text when it appends, so an export re-computes to the hash stored at append time.
 */
export const LEDGER_HEADER =
  "seq,at,kind,actor,requester,address,amount_trx,result,order_ids,confirmation_id,detail,prev_hash,hash";

/** Integer SUN as the export's decimal TRX: `1500000` → `1.5`, `0` → `0`. */
export const sunAsTrx = (sun: number): string => new Big(sun).div(SUN_PER_TRX).toFixed();

/**
 * One cell: line breaks folded to spaces (a row is one line), a leading `=`, `+`, `-` or `@`
 * prefixed with `'` (spreadsheet formula injection), quoted when it holds a comma or a quote.
 */
function cell(value: string): string {
  const folded = value.replace(/[\r\n]+/g, " ");
  const guarded = /^[=+\-@]/.test(folded) ? `'${folded}` : folded;
  return /[",]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

type Chained = Omit<LedgerEntry, "hash" | "energy" | "addresses">;

/** The row's text that its hash covers (everything but `,<hash>`). */
function hashedPart(e: Chained): string {
  return [
    String(e.seq),
    e.at,
    e.kind,
    cell(e.actor),
    cell(e.requester),
    cell(e.address),
    sunAsTrx(e.amountSun),
    e.result,
    cell(e.orderIds.join(";")),
    cell(e.confirmationId),
    cell(e.detail),
    e.prevHash,
  ].join(",");
}

const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/** The entry's hash, from its fields and the hash before it. */
export const hashOf = (e: Chained): string => sha256Hex(hashedPart(e));

/** The whole row as written in the file (no line ending). */
export const rowOf = (e: LedgerEntry): string => `${hashedPart(e)},${e.hash}`;

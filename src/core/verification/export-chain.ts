import { createHash } from "node:crypto";

/**
 * Re-checks an audit export CSV as CONTRACT.md ("Spend ledger and audit export") fixes it, as it
 * streams in (memory stays flat whatever the file's size): the header; then for each row, its
 * `hash` is the SHA-256 of the row's bytes up to its final `,<hash>` (so of everything up to and
 * including `prev_hash`), its `prev_hash` is the previous row's `hash` (the first row's is taken
 * as given: an export may start mid-ledger), and its `seq` follows the previous one. The first row
 * that breaks a rule is named by its `seq` as written: an edited cell names its row, a row left
 * out names the row after the gap, two rows swapped name the first of them in the file.
 */
const EXPORT_HEADER =
  "seq,at,kind,actor,requester,address,amount_trx,result,order_ids,confirmation_id,detail,prev_hash,hash";

export type ExportChainCheck =
  | { unaltered: true; rows: number; firstSeq: number | null; lastSeq: number | null; lastHash: string }
  | { unaltered: false; rows: number; badSeq: string; why: string };

/** A row longer than this is no ledger row (the ledger folds what it writes); reading stops there. */
const MAX_LINE_BYTES = 1_048_576;
const HASH_LENGTH = 64;
const HEX = /^[0-9a-f]{64}$/;
const SEQ = /^[1-9]\d{0,14}$/;
const NEWLINE = 0x0a;
const CR = 0x0d;
const COMMA = 0x2c;

type Broken = { badSeq: string; why: string };

export async function checkExportChain(
  input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
): Promise<ExportChainCheck> {
  const chain = chainChecker();
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of input) {
    let data = Buffer.concat([pending, typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk]);
    for (let at = data.indexOf(NEWLINE); at !== -1; at = data.indexOf(NEWLINE)) {
      const broken = chain.line(data.subarray(0, at));
      if (broken) return { unaltered: false, rows: chain.rows(), ...broken };
      data = data.subarray(at + 1);
    }
    if (data.length > MAX_LINE_BYTES) {
      return { unaltered: false, rows: chain.rows(), badSeq: chain.nextSeq(), why: "a line is far too long" };
    }
    pending = Buffer.from(data);
  }
  if (pending.length > 0) {
    const broken = chain.line(pending);
    if (broken) return { unaltered: false, rows: chain.rows(), ...broken };
  }
  return chain.end();
}

function chainChecker() {
  let headerSeen = false;
  let rows = 0;
  let firstSeq: number | null = null;
  let lastSeq: number | null = null;
  let lastHash = "";

  const nextSeq = () => (lastSeq === null ? "" : String(lastSeq + 1));

  function row(bytes: Buffer): Broken | undefined {
    const firstComma = bytes.indexOf(COMMA);
    const seqText = bytes.subarray(0, firstComma === -1 ? Math.min(bytes.length, 20) : firstComma).toString();
    const hashComma = bytes.length - HASH_LENGTH - 1;
    const prevComma = hashComma - HASH_LENGTH - 1;
    const hash = bytes.subarray(hashComma + 1).toString("latin1");
    const prevHash = bytes.subarray(prevComma + 1, hashComma).toString("latin1");
    if (
      !SEQ.test(seqText) ||
      prevComma <= firstComma ||
      bytes[hashComma] !== COMMA ||
      bytes[prevComma] !== COMMA ||
      !HEX.test(hash) ||
      !HEX.test(prevHash)
    )
      return {
        // A seq that is no number is named by the one expected there.
        badSeq: SEQ.test(seqText) ? seqText : nextSeq(),
        why: "it is not an export row (seq first, prev_hash and hash last)",
      };
    const computed = createHash("sha256").update(bytes.subarray(0, hashComma)).digest("hex");
    if (computed !== hash)
      return { badSeq: seqText, why: "its hash does not match its content (a cell was changed)" };
    const seq = Number(seqText);
    if (rows > 0 && prevHash !== lastHash)
      return {
        badSeq: seqText,
        why: "its prev_hash is not the hash of the row before it (a row was left out, added or moved)",
      };
    if (lastSeq !== null && seq !== lastSeq + 1)
      return { badSeq: seqText, why: `its seq does not follow ${lastSeq}` };
    rows += 1;
    firstSeq ??= seq;
    lastSeq = seq;
    lastHash = hash;
    return undefined;
  }

  return {
    rows: () => rows,
    nextSeq,
    line(raw: Buffer): Broken | undefined {
      const bytes = raw[raw.length - 1] === CR ? raw.subarray(0, -1) : raw;
      if (!headerSeen) {
        headerSeen = true;
        if (bytes.toString("latin1") === EXPORT_HEADER) return undefined;
        return { badSeq: "", why: "its first line is not the export's header" };
      }
      if (bytes.length === 0) return { badSeq: nextSeq(), why: "an empty line stands where a row should be" };
      return row(bytes);
    },
    end(): ExportChainCheck {
      if (!headerSeen) return { unaltered: false, rows: 0, badSeq: "", why: "the file is empty" };
      return { unaltered: true, rows, firstSeq, lastSeq, lastHash };
    },
  };
}

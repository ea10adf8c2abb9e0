import type { ComplianceVerdict } from "../../service/compliance.js";
import { capList, clip, formatTime, moreLine, plural } from "../format.js";
import {
  type Block,
  code,
  context,
  fields,
  header,
  plain,
  publicReply,
  type Reply,
  type Span,
  text,
} from "../reply.js";

/** A batch of at most this many addresses lists every address; a larger one lists only the flagged ones. */
const COMPLIANCE_LIST_ALL_MAX = 20;
/** The most flagged (blocked or invalid) addresses a large batch lists before "… and N more". */
export const COMPLIANCE_FLAGGED_MAX = 30;
/** Lines per text block: keeps each block far below Slack's 3000-character section limit. */
const LINES_PER_BLOCK = 10;

/** What each deny-list category means (the spec's table), for people who do not know the codes. */
const MEANING: Record<string, string> = {
  aml_risk: "on the central deny list (sanctions, scams, ransomware, stolen assets, fraud, law enforcement)",
  usdt_frozen:
    "frozen by the stablecoin issuer; it cannot move that stablecoin and delegation to it is refused",
  smart_contract:
    "a smart contract: a technical block (delegation to a contract is impossible), not an AML risk flag",
  spam_sender: "a confirmed mass-spam sender",
};

/** One address of a compliance check, in the order the user gave it. */
export interface ComplianceRow {
  address: string;
  /** The service's verdict; absent when the address failed the local check and was not sent. */
  verdict?: ComplianceVerdict;
  /** Why the address was not sent: it failed the local TRON address check. */
  localError?: string;
}

/** One verdict: a short positive line when clean, the full finding when blocked. */
export function renderVerdict(verdict: ComplianceVerdict): Reply {
  const checked = context(`Checked ${formatTime(verdict.checked_at)}`);
  if (!verdict.blocked && verdict.category === "clean") {
    return publicReply(`${verdict.address} is clean: not on any deny list.`, [
      text(code(verdict.address), " is clean: not on any deny list."),
      checked,
    ]);
  }
  const items: [string, Span | string][] = [
    ["Address", code(verdict.address)],
    ["Blocked", verdict.blocked ? "yes" : "no"],
    ["Category", verdict.category],
  ];
  if (verdict.severity !== undefined) items.push(["Severity", clip(verdict.severity, 40)]);
  if (verdict.reason_code !== undefined) items.push(["Reason code", code(clip(verdict.reason_code, 60))]);
  if (verdict.label !== undefined) items.push(["Label", clip(verdict.label, 120)]);
  const meaning = MEANING[verdict.category];
  const title = verdict.blocked ? `Blocked: ${verdict.category}` : `Not blocked: ${verdict.category}`;
  const blocks: Block[] = [header(title), fields(...items)];
  if (meaning !== undefined) blocks.push(text(`The address is ${meaning}.`));
  blocks.push(checked);
  return publicReply(`${verdict.address}: ${title.toLowerCase()}`, blocks);
}

type RowKind = "blocked" | "clean" | "invalid" | "other";

function kindOf(row: ComplianceRow): RowKind {
  if (row.verdict === undefined || row.verdict.category === "invalid") return "invalid";
  if (row.verdict.blocked) return "blocked";
  return row.verdict.category === "clean" ? "clean" : "other";
}

/** Counts by category, blocked ones first: "2 blocked (aml_risk 1, usdt_frozen 1) · 3 clean · 1 invalid". */
export function countsLine(rows: readonly ComplianceRow[]): string {
  const blocked = new Map<string, number>();
  let clean = 0;
  let invalid = 0;
  let other = 0;
  for (const row of rows) {
    const kind = kindOf(row);
    if (kind === "blocked") {
      const category = row.verdict?.category ?? "?";
      blocked.set(category, (blocked.get(category) ?? 0) + 1);
    } else if (kind === "clean") clean += 1;
    else if (kind === "invalid") invalid += 1;
    else other += 1;
  }
  const blockedTotal = [...blocked.values()].reduce((a, b) => a + b, 0);
  const parts: string[] = [];
  if (blockedTotal > 0) {
    const detail = [...blocked.entries()].map(([c, n]) => `${c} ${n}`).join(", ");
    parts.push(`${blockedTotal} blocked (${detail})`);
  }
  parts.push(`${clean} clean`);
  if (invalid > 0) parts.push(`${invalid} invalid`);
  if (other > 0) parts.push(`${other} other`);
  return parts.join(" · ");
}

/** One row as a line: `3. T… — blocked: aml_risk (BLOCK · OFAC_SDN · OFAC SDN list)`. */
function rowSpans(row: ComplianceRow, index: number): Span[] {
  const number = plain(`${index + 1}. `);
  const v = row.verdict;
  if (v === undefined || v.category === "invalid") {
    const why = row.localError ?? v?.error ?? "invalid address";
    return [number, code(clip(row.address, 42)), plain(` — invalid: ${clip(why, 140)}`)];
  }
  if (!v.blocked) return [number, code(v.address), plain(` — ${v.category}`)];
  const detail = [v.severity, v.reason_code, v.label].filter((x): x is string => x !== undefined);
  const suffix = detail.length > 0 ? ` (${clip(detail.join(" · "), 140)})` : "";
  return [number, code(v.address), plain(` — blocked: ${v.category}${suffix}`)];
}

/** Lines joined into text blocks of LINES_PER_BLOCK lines. */
function lineBlocks(lines: Span[][]): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_BLOCK) {
    const chunk = lines.slice(i, i + LINES_PER_BLOCK);
    blocks.push(text(...chunk.flatMap((spans, j) => (j === 0 ? spans : [plain("\n"), ...spans]))));
  }
  return blocks;
}

/**
 * Several addresses, in the order given. Small batches list every address; large ones (a batch
 * may hold 1000) give the counts and list only the blocked and invalid ones, capped.
 */
export function renderBatch(rows: readonly ComplianceRow[], checkedAt?: string): Reply {
  const counts = countsLine(rows);
  const title = `Compliance check of ${plural(rows.length, "address", "addresses")}`;
  const blocks: Block[] = [header(title), text(counts)];
  const numbered = rows.map((row, index) => ({ row, index }));
  const listed =
    rows.length <= COMPLIANCE_LIST_ALL_MAX ? numbered : numbered.filter(({ row }) => kindOf(row) !== "clean");
  const { shown, more } = capList(listed, COMPLIANCE_FLAGGED_MAX);
  const lines = shown.map(({ row, index }) => rowSpans(row, index));
  if (more > 0) lines.push([plain(moreLine(more))]);
  blocks.push(...lineBlocks(lines));
  const notes: string[] = [];
  if (rows.length > COMPLIANCE_LIST_ALL_MAX && listed.length > 0)
    notes.push("Clean addresses are not listed.");
  if (checkedAt !== undefined) notes.push(`Checked ${formatTime(checkedAt)}.`);
  if (notes.length > 0) blocks.push(context(notes.join(" ")));
  return publicReply(`${title}: ${counts}`, blocks);
}

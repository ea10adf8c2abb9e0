import type { ComplianceVerdict } from "../../service/compliance.js";
import { isServiceError } from "../../service/errors.js";
import { noteRefusal } from "../activity/facts.js";
import type { CoreDeps } from "../deps.js";
import { toUserLine, UserError } from "../errors.js";
import {
  ORCHESTRATOR_MAX_ENERGY_PER_ADDRESS,
  ORCHESTRATOR_MIN_ENERGY_PER_ADDRESS,
  parseEnergyAmount,
} from "../parse/amount.js";
import { formatCount } from "../parse/echo.js";
import { parseTronAddress, TRON_ADDRESS_PATTERN } from "../parse/tron-address.js";
import { refusalFor, warningFor } from "../spend/preflight.js";
import type { PayoutRow } from "./payout-row.js";

/**
 * Which rows of a payout run are ordered and which are left out, and why: not a TRON address or
 * a bad checksum, an amount not understood or out of range, a duplicate (naming the first line),
 * more than 100 addresses, the total above 50,000,000, on the deny list. The deny list is read
 * for the whole run with ONE `POST /apiv2/compliance/batch` call (up to 1000 addresses), never one
 * lookup per address; a failed call refuses the run, as the bot never spends on an unchecked address.
 */
export const PAYOUT_MAX_ADDRESSES = 100;
export const PAYOUT_MIN_ADDRESSES = 2;
const PAYOUT_MAX_TOTAL_ENERGY = 50_000_000;
const BATCH_MAX = 1000;

export interface PayoutItem {
  where: string;
  address: string;
  amount: number;
}

export interface LeftOut {
  where: string;
  /** As typed (cleaned and cut by the renderer). */
  address: string;
  /** The group it is listed under: "not a TRON address", "duplicate", "on the deny list (aml_risk)". */
  reason: string;
  /** What sets it apart within its group: "of line 3", the address of a deny-list refusal. */
  detail?: string;
}

export interface PayoutPlan {
  items: PayoutItem[];
  leftOut: LeftOut[];
  /** Allowed, but worth a look (spam_sender). */
  warnings: string[];
}

const RANGE = `${formatCount(ORCHESTRATOR_MIN_ENERGY_PER_ADDRESS)} to ${formatCount(ORCHESTRATOR_MAX_ENERGY_PER_ADDRESS)}`;

/** The format checks of one row: its item, or why it is left out. */
function checkRow(row: PayoutRow, firstSeen: Map<string, string>): PayoutItem | LeftOut {
  const out = (reason: string, detail?: string): LeftOut => ({
    where: row.where,
    address: row.address,
    reason,
    ...(detail !== undefined && { detail }),
  });
  if (row.address === "") return out("no address");
  if (!parseTronAddress(row.address).ok) {
    return out(
      TRON_ADDRESS_PATTERN.test(row.address) ? "bad checksum (look for a typo)" : "not a TRON address",
    );
  }
  if (row.amount === "") return out("no amount");
  const amount = parseEnergyAmount(row.amount);
  if (!amount.ok) return out("amount not understood (use 65000, 65k or 1.2m)");
  if (
    amount.value < ORCHESTRATOR_MIN_ENERGY_PER_ADDRESS ||
    amount.value > ORCHESTRATOR_MAX_ENERGY_PER_ADDRESS
  )
    return out(`amount out of range (${RANGE} each)`, formatCount(amount.value));
  const first = firstSeen.get(row.address);
  if (first !== undefined) return out("duplicate", `of ${first}`);
  firstSeen.set(row.address, row.where);
  return { where: row.where, address: row.address, amount: amount.value };
}

const isLeftOut = (x: PayoutItem | LeftOut): x is LeftOut => "reason" in x;

/** The rows' format checks, without the deny list (pure). */
export function checkRows(rows: readonly PayoutRow[]): { candidates: PayoutItem[]; leftOut: LeftOut[] } {
  const firstSeen = new Map<string, string>();
  const candidates: PayoutItem[] = [];
  const leftOut: LeftOut[] = [];
  for (const row of rows) {
    const checked = checkRow(row, firstSeen);
    if (isLeftOut(checked)) leftOut.push(checked);
    else candidates.push(checked);
  }
  return { candidates, leftOut };
}

/** The deny list's verdicts of the candidates, in one batch call. */
async function verdictsOf(
  deps: Pick<CoreDeps, "service" | "logger">,
  addresses: readonly string[],
): Promise<Map<string, ComplianceVerdict>> {
  if (addresses.length === 0) return new Map();
  try {
    const batch = await deps.service.compliance.batch(addresses);
    return new Map(batch.results.map((v) => [v.address, v]));
  } catch (error) {
    if (!isServiceError(error)) throw error;
    deps.logger.warn({ err: error, code: error.code }, "deny-list batch failed before a payout run");
    throw new UserError(
      `The deny-list check of the run failed, and the bot never spends on an unchecked address. Nothing was ordered. ${toUserLine(error)}`,
    );
  }
}

function denyReason(verdict: ComplianceVerdict | undefined): string | undefined {
  if (verdict === undefined) return "not checked by the deny list";
  if (verdict.category === "invalid") return "not a TRON address (deny list: invalid)";
  if (refusalFor(verdict, "ordered") === undefined) return undefined;
  return `on the deny list (${verdict.category})`;
}

/** The run's caps, in the order of the rows: at most 100 addresses, at most 50,000,000 energy. */
function applyCaps(candidates: readonly PayoutItem[], leftOut: LeftOut[]): PayoutItem[] {
  const items: PayoutItem[] = [];
  let total = 0;
  for (const item of candidates) {
    const out = (reason: string) => leftOut.push({ where: item.where, address: item.address, reason });
    if (items.length >= PAYOUT_MAX_ADDRESSES) out(`more than ${PAYOUT_MAX_ADDRESSES} addresses`);
    else if (total + item.amount > PAYOUT_MAX_TOTAL_ENERGY)
      out(`the run's total would pass ${formatCount(PAYOUT_MAX_TOTAL_ENERGY)} energy`);
    else {
      items.push(item);
      total += item.amount;
    }
  }
  return items;
}

const ordinal = (where: string): number => Number(/\d+/.exec(where)?.[0] ?? "0");

export async function planPayout(
  deps: Pick<CoreDeps, "service" | "logger"> & Partial<Pick<CoreDeps, "store" | "now">>,
  rows: readonly PayoutRow[],
): Promise<PayoutPlan> {
  const { candidates, leftOut } = checkRows(rows);
  const checked = candidates.slice(0, BATCH_MAX);
  const verdicts = await verdictsOf(
    deps,
    checked.map((c) => c.address),
  );
  const inBatch = new Set(checked);
  const allowed: PayoutItem[] = [];
  const warnings: string[] = [];
  for (const item of candidates) {
    const verdict = verdicts.get(item.address);
    const reason = inBatch.has(item) ? denyReason(verdict) : "more than 100 addresses";
    if (reason !== undefined) {
      leftOut.push({ where: item.where, address: item.address, reason, detail: item.address });
      if (verdict !== undefined && verdict.category !== "invalid") await noteRefusal(deps, verdict);
      continue;
    }
    const warning = verdict === undefined ? undefined : warningFor(verdict);
    if (warning !== undefined) warnings.push(warning);
    allowed.push(item);
  }
  const items = applyCaps(allowed, leftOut);
  leftOut.sort((a, b) => ordinal(a.where) - ordinal(b.where));
  return { items, leftOut, warnings };
}

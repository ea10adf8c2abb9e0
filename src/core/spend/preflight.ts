import type { ComplianceVerdict } from "../../service/compliance.js";
import { isServiceError } from "../../service/errors.js";
import { noteRefusal } from "../activity/facts.js";
import type { CoreDeps } from "../deps.js";
import { toUserLine } from "../errors.js";
import { clip } from "../format.js";

/**
 * The deny-list check before anything is spent on an address (the free open lookup, or the batch
 * endpoint when the open lookup's limit has no slot free right now). A refusal
 * names the reason; a failed check refuses too, because the bot never spends on an address it
 * could not check.
 */
export type Preflight =
  | { ok: true; verdict: ComplianceVerdict; warning?: string }
  | { ok: false; line: string };

/** What the spend is, for the lines: "ordered" (energy) or "started" (Host Mode). */
export type SpendWord = "ordered" | "started";

function amlReason(verdict: ComplianceVerdict): string {
  const parts = [verdict.severity, verdict.label].filter((p): p is string => p !== undefined && p !== "");
  return parts.length > 0 ? `, ${clip(parts.join(": "), 100)}` : "";
}

/** The refusal line of a blocking category, or undefined when the verdict allows spending. */
export function refusalFor(verdict: ComplianceVerdict, word: SpendWord): string | undefined {
  const a = verdict.address;
  const nothing = `Nothing was ${word}.`;
  switch (verdict.category) {
    case "clean":
    case "spam_sender":
      return undefined;
    case "aml_risk":
      return `Refused: ${a} is on the deny list (aml_risk${amlReason(verdict)}). ${nothing}`;
    case "usdt_frozen":
      return `Refused: ${a} is frozen by the stablecoin issuer (usdt_frozen), and the service refuses resource delegation to it. ${nothing}`;
    case "smart_contract":
      return `Refused: ${a} is a smart contract (smart_contract); energy cannot be delegated to a contract. ${nothing}`;
    default:
      return verdict.blocked
        ? `Refused: the deny list blocks ${a} (${verdict.category}). ${nothing}`
        : undefined;
  }
}

export function warningFor(verdict: ComplianceVerdict): string | undefined {
  if (verdict.category === "spam_sender") {
    return `${verdict.address} is a confirmed mass-spam sender (spam_sender); this is allowed, but check that it is the address you mean.`;
  }
  return undefined;
}

const noFreeSlot = (error: unknown): boolean => isServiceError(error) && error.code === "no_free_slot";

/**
 * The verdict without waiting on a rate limit: the open lookup (10/s, 300/min per IP) when a slot
 * is free now, else the authenticated batch endpoint for this one address (200/s per key). Only
 * when the batch is refused too (a key not allowed to batch) does it wait for the open lookup.
 */
async function verdictOf(deps: Pick<CoreDeps, "service" | "logger">, address: string) {
  try {
    return await deps.service.compliance.lookup(address, { maxLimiterWaitMs: 0 });
  } catch (error) {
    if (!noFreeSlot(error)) throw error;
  }
  try {
    const batch = await deps.service.compliance.batch([address]);
    const verdict = batch.results[0];
    if (verdict && verdict.category !== "invalid") return verdict;
  } catch (error) {
    if (!isServiceError(error)) throw error;
    deps.logger.warn({ err: error, code: error.code }, "deny-list batch failed; waiting for the open lookup");
  }
  return deps.service.compliance.lookup(address);
}

export async function preflightAddress(
  deps: Pick<CoreDeps, "service" | "logger"> & Partial<Pick<CoreDeps, "store" | "now">>,
  address: string,
  word: SpendWord = "ordered",
): Promise<Preflight> {
  let verdict: ComplianceVerdict;
  try {
    verdict = await verdictOf(deps, address);
  } catch (error) {
    if (!isServiceError(error)) throw error;
    deps.logger.warn({ err: error, code: error.code, address }, "deny-list check failed before a spend");
    if (error.code === 5003) {
      return {
        ok: false,
        line: `The deny-list check is unavailable (code 5003); try again in a moment. Nothing was ${word}.`,
      };
    }
    return {
      ok: false,
      line: `The deny-list check failed, and the bot never spends on an unchecked address. Nothing was ${word}. ${toUserLine(error)}`,
    };
  }
  const refusal = refusalFor(verdict, word);
  if (refusal !== undefined) await noteRefusal(deps, verdict);
  if (refusal !== undefined) return { ok: false, line: refusal };
  const warning = warningFor(verdict);
  return warning === undefined ? { ok: true, verdict } : { ok: true, verdict, warning };
}

/** The deny-list field of a quote. */
export function denyListText(verdict: ComplianceVerdict): string {
  if (verdict.category === "clean") return "clean (not on any deny list)";
  return `${verdict.category}: allowed, see the warning`;
}

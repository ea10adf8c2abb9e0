import Big from "big.js";
import { z } from "zod";
import { within } from "../../clock.js";
import type { ComplianceVerdict } from "../../service/compliance.js";
import { isServiceError } from "../../service/errors.js";
import type { PriceList, PricingServiceName } from "../../service/pricing.js";
import { getJson, setJsonIfNotExists } from "../../store/store-json.js";
import { noteRefusal } from "../activity/facts.js";
import { type Balance, balanceCovers } from "../balance/balance-cache.js";
import { balanceToRefuseOn } from "../balance/balance-fresh.js";
import type { CoreDeps } from "../deps.js";
import { toUserLine, UserError } from "../errors.js";
import { clip } from "../format.js";
import type { Actor } from "../invocation.js";
import { readLivePriceList } from "../pricing/price-list.js";
import { heldOf } from "./activation-bound.js";
import { refusalFor, type SpendWord, warningFor } from "./preflight.js";
import { reserveSpend } from "./reservation.js";

/**
 * The decision at Confirm, one place for every spend (a person's Confirm, an Approve, a payout
 * run, a standing order's run): money controls hold for what is bought now, not for what was
 * quoted minutes ago.
 *
 *   decideAtConfirm(deps, spend) → go | rose | approval | refused
 *
 * 1. The price list is read from the service (one call, bounded by CONFIRM_CHECK_MS) and the
 *    spend quoted again (`spend.requote`). Only when the service cannot answer in time is a cached
 *    copy used, and only one younger than its `cache_ttl` whose period has not ended.
 * 2. The deny list is checked again for `spend.addresses` with the authenticated batch endpoint
 *    (one call, bounded); a block refuses with its category and reason, and a check that cannot be
 *    made in time refuses too (nothing is ever spent on an unchecked address).
 * 3. A price above what was confirmed (`spend.quoted`) orders nothing: `rose` carries the new
 *    quote, by how much and why, for the caller to show with fresh buttons. A lower price goes on.
 * 4. At or above OPS_APPROVAL_TRX (unless `spend.approval` is "approved") → `approval`.
 * 5. The balance (last reading minus spends since) must cover the live amount, then the caps
 *    (OPS_MAX_ORDER_TRX, OPS_DAILY_LIMIT_TRX) are checked and the live amount reserved in one
 *    atomic step. `go` means reserved: settle it with what was charged (`settleSpend`) or give it
 *    back (`releaseSpend`), keyed by `spend.confirmationId`.
 *
 * A `go` is stored under the confirmation: a re-run of the same confirmation (a recovery after a
 * crash, an Approve carried on) gets the same `go` and quote without deciding again, so an order
 * that may already exist is sent again with its idempotency key, never refused or re-priced.
 */
const CONFIRM_CHECK_MS = 3_000;
const DECISION_TTL_MS = 48 * 60 * 60_000;

/** What a spend quotes to: its amount in TRX, and the period it was priced in (for "why"). */
export interface LiveQuote {
  costTrx: string;
  /** What the caps hold when more may be charged (an activation fee: activation-bound.ts). */
  holdTrx?: string;
  periodLabel?: string;
}

export interface ConfirmSpend<Q extends LiveQuote> {
  /** The idempotency seed of the spend: the reservation and the stored decision are keyed by it. */
  confirmationId: string;
  /** Whose caps the spend counts against. */
  actor: Actor | string;
  /** The agent that asked for it: the spend counts against its daily budget too. */
  agent?: string;
  /** What the person confirmed (the quote on the button, or the amount approved). */
  quoted: LiveQuote;
  /** The addresses the spend goes to (one batch call, at most 1000). */
  addresses: readonly string[];
  /** The price list services the spend is priced from. */
  services: readonly PricingServiceName[];
  /** The quote from the live list; a UserError when the list cannot price it. Must be JSON. */
  requote(list: PriceList): Q;
  /** "ordered" or "started", for the lines. */
  word: SpendWord;
  /** "approved": a second person approved this spend; the approval threshold is not asked again. */
  approval?: "ask" | "approved";
}

type RefusalReason = "deny-list" | "deny-list-unchecked" | "prices" | "balance" | "caps";

export type ConfirmDecision<Q extends LiveQuote> =
  | {
      kind: "go";
      quote: Q;
      /** Set when the live price is below the confirmed one (ordered at the lower price). */
      fellByTrx?: string;
      verdicts: ComplianceVerdict[];
      warnings: string[];
      /** True when this confirmation had decided before (a re-run): nothing was checked again. */
      repeated: boolean;
    }
  | { kind: "rose"; quote: Q; byTrx: string; why: string; verdicts: ComplianceVerdict[]; warnings: string[] }
  | { kind: "approval"; quote: Q; verdicts: ComplianceVerdict[] }
  | {
      kind: "refused";
      reason: RefusalReason;
      line: string;
      /** For "deny-list": every verdict that blocks (a batch spend may drop them and quote again). */
      blocked?: ComplianceVerdict[];
    };

type Deps = Pick<CoreDeps, "service" | "store" | "logger" | "now" | "settings" | "observer">;

const decisionKey = (cid: string): string => `confirm-decision:${cid}`;
const storedSchema = z.object({ quote: z.unknown(), fellByTrx: z.string().optional() });

const timeoutOf = (deps: Pick<CoreDeps, "settings">): number =>
  deps.settings.confirmCheckMs ?? CONFIRM_CHECK_MS;

export async function decideAtConfirm<Q extends LiveQuote>(
  deps: Deps,
  spend: ConfirmSpend<Q>,
): Promise<ConfirmDecision<Q>> {
  const earlier = await getJson(deps.store, decisionKey(spend.confirmationId), storedSchema);
  if (earlier) return goAgain(deps, spend, earlier.quote as Q, earlier.fellByTrx);
  const [priced, checked] = await Promise.all([livePrice(deps, spend), denyCheck(deps, spend)]);
  if (!checked.ok) {
    const { reason, line, blocked } = checked;
    return { kind: "refused", reason, line, ...(blocked !== undefined && { blocked }) };
  }
  if (!priced.ok) return { kind: "refused", reason: "prices", line: priced.line };
  const { quote } = priced;
  const { verdicts, warnings } = checked;
  const diff = new Big(quote.costTrx).minus(spend.quoted.costTrx);
  if (diff.gt(0)) {
    const why = whyRose(spend.quoted, quote);
    return { kind: "rose", quote, byTrx: diff.toFixed(), why, verdicts, warnings };
  }
  if (spend.approval !== "approved" && atApprovalThreshold(deps, heldOf(quote))) {
    return { kind: "approval", quote, verdicts };
  }
  const balance = await balanceToRefuseOn(deps, quote.costTrx);
  if (balanceCovers(balance, quote.costTrx) === false) {
    return { kind: "refused", reason: "balance", line: balanceLine(balance, quote.costTrx, spend.word) };
  }
  const fellByTrx = diff.lt(0) ? diff.abs().toFixed() : undefined;
  const stored = { quote, ...(fellByTrx !== undefined && { fellByTrx }) };
  await setJsonIfNotExists(deps.store, decisionKey(spend.confirmationId), stored, DECISION_TTL_MS);
  const reserved = await reserve(deps, spend, quote);
  if (!reserved.ok) return reserved.refusal;
  return {
    kind: "go",
    quote,
    ...(fellByTrx !== undefined && { fellByTrx }),
    verdicts,
    warnings,
    repeated: false,
  };
}

/** True when `trx` is at or above OPS_APPROVAL_TRX (unset: never). */
export function atApprovalThreshold(deps: Pick<CoreDeps, "settings">, trx: string): boolean {
  const threshold = deps.settings.approvalTrx;
  return threshold !== undefined && new Big(trx).gte(threshold);
}

/** A re-run of a confirmation that decided "go" before: the same quote, the hold kept (or taken again). */
async function goAgain<Q extends LiveQuote>(
  deps: Deps,
  spend: ConfirmSpend<Q>,
  quote: Q,
  fellByTrx: string | undefined,
): Promise<ConfirmDecision<Q>> {
  const reserved = await reserve(deps, spend, quote);
  if (!reserved.ok) return reserved.refusal;
  const repeated = { verdicts: [], warnings: [], repeated: true };
  return { kind: "go", quote, ...(fellByTrx !== undefined && { fellByTrx }), ...repeated };
}

async function reserve<Q extends LiveQuote>(
  deps: Deps,
  spend: ConfirmSpend<Q>,
  quote: Q,
): Promise<{ ok: true } | { ok: false; refusal: ConfirmDecision<Q> }> {
  const held = await reserveSpend(deps, {
    confirmationId: spend.confirmationId,
    actor: spend.actor,
    quoteTrx: heldOf(quote),
    settings: deps.settings,
    ...(spend.agent !== undefined && {
      agent: { name: spend.agent, dailyTrx: deps.settings.agentDailyTrx[spend.agent] },
    }),
  });
  if (held.ok) return { ok: true };
  await deps.store.del(decisionKey(spend.confirmationId));
  const nothing = spend.word === "started" ? "Not started" : "Not ordered";
  return { ok: false, refusal: { kind: "refused", reason: "caps", line: `${nothing}: ${held.line}` } };
}

type Priced<Q> = { ok: true; quote: Q } | { ok: false; line: string };

async function livePrice<Q extends LiveQuote>(deps: Deps, spend: ConfirmSpend<Q>): Promise<Priced<Q>> {
  const nothing = `Nothing was ${spend.word}.`;
  const read = await readLivePriceList(deps, spend.services, timeoutOf(deps));
  if (!read.ok) {
    deps.logger.warn({ err: read.error }, "price list unreadable at Confirm; nothing spent");
    return {
      ok: false,
      line:
        keyRefusalLine(read.error, spend.word) ??
        `The price list could not be read from the service just now, and a spend is decided on the live price. ${nothing} Try again in a moment.`,
    };
  }
  if (!read.live) {
    deps.logger.warn(
      { err: read.error, ageMs: read.ageMs },
      "price list not answered in time at Confirm; a copy within its cache_ttl and period decides",
    );
  }
  try {
    return { ok: true, quote: spend.requote(read.list) };
  } catch (error) {
    if (error instanceof UserError) return { ok: false, line: error.message };
    throw error;
  }
}

type Checked =
  | { ok: true; verdicts: ComplianceVerdict[]; warnings: string[] }
  | { ok: false; reason: RefusalReason; line: string; blocked?: ComplianceVerdict[] };

async function denyCheck<Q extends LiveQuote>(deps: Deps, spend: ConfirmSpend<Q>): Promise<Checked> {
  const nothing = `Nothing was ${spend.word}.`;
  const timeoutMs = timeoutOf(deps);
  let verdicts: ComplianceVerdict[];
  try {
    verdicts = await within(verdictsOf(deps, spend.addresses, timeoutMs), timeoutMs * 2, () => {
      throw new UserError(`no answer within ${Math.round((timeoutMs * 2) / 100) / 10} s`);
    });
  } catch (error) {
    deps.logger.warn({ err: error }, "deny-list check at Confirm failed; nothing spent");
    return {
      ok: false,
      reason: "deny-list-unchecked",
      line: `The deny list could not be checked just now (${toUserLine(error).replace(/\.$/, "")}), and the bot never spends on an unchecked address. ${nothing}`,
    };
  }
  const blocked = verdicts.filter((v) => v.category !== "invalid" && refusalFor(v, spend.word) !== undefined);
  const [first] = blocked;
  if (first !== undefined) {
    await Promise.all(blocked.map((v) => noteRefusal(deps, v).catch(() => {})));
    const code = first.reason_code === undefined ? "" : ` (reason ${clip(first.reason_code, 40)})`;
    const more = blocked.length > 1 ? ` ${blocked.length - 1} more of its addresses are blocked too.` : "";
    const line = `The address is now on the deny list${code}. ${refusalFor(first, spend.word)}${more}`;
    return { ok: false, reason: "deny-list", line, blocked };
  }
  const unchecked = spend.addresses.filter(
    (a) => !verdicts.some((v) => v.address === a && v.category !== "invalid"),
  );
  if (unchecked.length > 0) {
    return {
      ok: false,
      reason: "deny-list-unchecked",
      line: `The deny list gave no verdict for ${unchecked.join(", ")}, and the bot never spends on an unchecked address. ${nothing}`,
    };
  }
  const warnings = verdicts.map(warningFor).filter((w): w is string => w !== undefined);
  return { ok: true, verdicts, warnings };
}

const KEY_CHECK = "an admin should check SERVICE_API_KEY and SERVICE_REAL_IP";

/** The service refused the bot's key itself (blocked, or key or IP not accepted): the line says so. */
function keyRefusalLine(error: unknown, word: SpendWord): string | undefined {
  if (!isServiceError(error) || error.kind !== "http") return undefined;
  const not = word === "started" ? "Not started" : "Not ordered";
  if (error.httpStatus === 403 && error.code === 1005)
    return `${not}: the service has blocked the bot's API key (code 1005); ${KEY_CHECK}. Nothing was charged.`;
  if (error.httpStatus === 401)
    return `${not}: the service did not accept the bot's API key or IP (HTTP 401); ${KEY_CHECK}. Nothing was charged.`;
  return undefined;
}

/** Beyond this many addresses a refused batch is not replaced by open lookups (10/s per IP). */
const OPEN_LOOKUPS_MAX = 5;

/**
 * The verdicts from the authenticated batch endpoint (200/s per key), bounded in time. When the
 * batch refuses the bot's key (401/403: the key is blocked or not allowed to batch), the open
 * lookup (no key, 10/s per IP) answers for a few addresses instead, bounded the same way; the
 * spend then meets the service's own refusal of the key.
 */
async function verdictsOf(
  deps: Deps,
  addresses: readonly string[],
  timeoutMs: number,
): Promise<ComplianceVerdict[]> {
  try {
    const batch = await deps.service.compliance.batch(addresses, { timeoutMs, maxLimiterWaitMs: timeoutMs });
    return batch.results;
  } catch (error) {
    const keyRefused =
      isServiceError(error) &&
      error.kind === "http" &&
      (error.httpStatus === 401 || error.httpStatus === 403);
    if (!keyRefused || addresses.length > OPEN_LOOKUPS_MAX) throw error;
    deps.logger.warn({ err: error }, "deny-list batch refused the key at Confirm; asking the open lookup");
    return Promise.all(
      addresses.map((a) => deps.service.compliance.lookup(a, { maxLimiterWaitMs: timeoutMs })),
    );
  }
}

/** Why the price rose: the period changed, or the service changed its prices within the period. */
function whyRose(quoted: LiveQuote, now: LiveQuote): string {
  if (
    quoted.periodLabel !== undefined &&
    now.periodLabel !== undefined &&
    quoted.periodLabel !== now.periodLabel
  )
    return `the price period changed (${quoted.periodLabel} → ${now.periodLabel})`;
  return "the service changed its prices since the quote";
}

function balanceLine(balance: Balance, costTrx: string, word: SpendWord): string {
  const shown = balance.known ? `${balance.balanceTrx} TRX` : "unknown";
  const nothing = word === "started" ? "Not started" : "Not ordered";
  return `${nothing}: the balance (${shown}) does not cover ${costTrx} TRX at the live price. Top up the deposit address, then run the command again.`;
}

/** "The price rose by 0.91 TRX (3.705 → 4.615 TRX): the period changed (…). Nothing was ordered; …" */
export function priceRoseLine(
  decision: Extract<ConfirmDecision<LiveQuote>, { kind: "rose" }>,
  quotedTrx: string,
  word: SpendWord,
): string {
  return `The price rose by ${decision.byTrx} TRX (${quotedTrx} → ${decision.quote.costTrx} TRX): ${decision.why}. Nothing was ${word}; this is the new quote, confirm again to go on at the new price.`;
}

/** "The price fell by 0.2 TRX since the quote: ordered at 2.9 TRX." */
export const priceFellLine = (fellByTrx: string, costTrx: string, word: SpendWord): string =>
  `The price fell by ${fellByTrx} TRX since the quote: ${word} at ${costTrx} TRX.`;

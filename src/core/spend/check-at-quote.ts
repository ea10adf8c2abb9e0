import Big from "big.js";
import type { ComplianceVerdict } from "../../service/compliance.js";
import type { PricingServiceName } from "../../service/pricing.js";
import { readAhead, type StoreReads } from "../../store/read-ahead.js";
import type { Balance } from "../balance/balance-cache.js";
import { balanceCovers } from "../balance/balance-cache.js";
import { balanceToRefuseOn } from "../balance/balance-fresh.js";
import { BALANCE_KEYS } from "../balance/balance-refresh.js";
import type { CoreDeps } from "../deps.js";
import type { Actor } from "../invocation.js";
import { priceListKeys } from "../pricing/price-list.js";
import {
  activationBoundOf,
  activationKeys,
  activationUnknownLine,
  capsHoldActivation,
  heldLine,
  heldTrx,
} from "./activation-bound.js";
import { preflightAddress, type SpendWord } from "./preflight.js";
import { agentBudgetRefusal, agentDayKey } from "./reservation.js";
import { checkSpend, perOrderRefusal, spendKey, trxToSun } from "./spend-guard.js";

/**
 * The checks of a first quote, the pipeline's beside the decision at Confirm (decide-at-confirm.ts),
 * the same for every command that quotes a spend:
 *
 *   preflight (the free deny-list lookup first: a refused address costs no price or balance request)
 *   → price (the feature's, from the live list)
 *   → caps (OPS_MAX_ORDER_TRX, OPS_DAILY_LIMIT_TRX, or an agent's budget) on the quote plus the
 *     activation bound of the addresses not known active
 *   → balance (the reading a refusal may rest on: balanceToRefuseOn)
 *
 * It answers the one refusal line, or what the quote's view needs. This module is the only caller
 * of `checkSpend` (a re-quote's caps are `capRefusal`, here too).
 *
 * What the later steps read from the store (the cached price list, the activation marks, today's
 * total, the last balance reading) is read in one round trip while the deny list answers
 * (src/store/read-ahead.ts); the service is still asked in the order above, and only once the
 * deny list allowed the address.
 */
type Deps = CoreDeps;

export interface QuoteChecks<Q> {
  /** Whose caps: the person, a standing order's creator. */
  actor: Actor | string;
  /** "ordered" or "started" (the definition's word), for the deny-list lines. */
  word?: SpendWord;
  /** The one address the spend goes to, checked against the deny list first (a run plans its own batch). */
  preflight?: string;
  /** The price, its cached list read through `reads` (see `prices`). */
  price(reads: StoreReads): Promise<Q>;
  /** The price list services `price` reads, so their cached copies are read ahead. */
  prices?: readonly PricingServiceName[];
  /** What the quote costs, in TRX. */
  costOf(quote: Q): string;
  /** The addresses whose activation the caps hold beside the quote (absent: none may need it). */
  activation?: readonly string[];
  /** An agent asks: its own daily budget (OPS_AGENT_TOKENS) instead of a person's daily cap. */
  agent?: string;
  /** How a cap's line names the spend ("This screening"); default "This order". */
  noun?: string;
  /** False: the balance is not read (a standing order reads it at each run). Default true. */
  balance?: boolean;
}

interface QuoteView<Q> {
  quote: Q;
  warnings: string[];
  /** The activation fee the caps held beside the quote, when an address may need it. */
  activationTrx?: string;
}

/** What the quote's view needs: the deny list's verdict when it checked one address, the balance unless told not to read it. */
export type QuoteCheck<Q, C> =
  | { ok: false; line: string }
  | ({ ok: true } & QuoteView<Q> &
      (C extends { preflight: string } ? { verdict: ComplianceVerdict } : unknown) &
      (C extends { balance: false } ? unknown : { balance: Balance; covered: boolean }));

export async function checkAtQuote<Q, C extends QuoteChecks<Q>>(
  deps: Deps,
  checks: C & QuoteChecks<Q>,
): Promise<QuoteCheck<Q, C>> {
  type Checked = QuoteCheck<Q, C>;
  let verdict: ComplianceVerdict | undefined;
  const warnings: string[] = [];
  const reads = readAhead(deps.store, keysReadAtQuote(deps, checks));
  if (checks.preflight !== undefined) {
    const preflight = await preflightAddress(deps, checks.preflight, checks.word);
    if (!preflight.ok) return preflight;
    verdict = preflight.verdict;
    if (preflight.warning !== undefined) warnings.push(preflight.warning);
  }
  const quote = await checks.price(reads);
  const costTrx = checks.costOf(quote);
  const activation =
    checks.activation === undefined ? undefined : await activationBoundOf(deps, checks.activation, reads);
  // No fee shown yet and OPS_ACTIVATION_TRX unset: with a cap to hold it, refused rather than guessed;
  // without one, the quote says the activation cost is added.
  if (activation?.kind === "fee-unknown" && capsHoldActivation(deps.settings, checks.agent)) {
    return { ok: false, line: activationUnknownLine(checks.activation?.length ?? 1) };
  }
  const activationTrx = activation?.kind === "fee" ? activation.feeTrx : undefined;
  const held = heldTrx(costTrx, activationTrx);
  const cap =
    checks.agent !== undefined
      ? await agentBudgetCheck(deps, checks.agent, held, reads)
      : await capRefusal(deps, checks.actor, held, checks.noun, reads);
  if (cap !== undefined) {
    const note = activationTrx === undefined ? "" : ` ${heldLine(costTrx, activationTrx)}`;
    return { ok: false, line: `${cap}${note}` };
  }
  const view = {
    ok: true as const,
    quote,
    ...(verdict && { verdict }),
    warnings,
    ...(activationTrx !== undefined && { activationTrx }),
  };
  if (checks.balance === false) return view as Checked;
  const balance = await balanceToRefuseOn(deps, costTrx, reads);
  return { ...view, balance, covered: balanceCovers(balance, costTrx) !== false } as Checked;
}

/** What the checks after the deny list will read from the store, in the order they read it. */
function keysReadAtQuote(deps: Pick<Deps, "settings" | "now">, checks: QuoteChecks<unknown>): string[] {
  const { settings } = deps;
  const dailyKey =
    checks.agent !== undefined
      ? settings.agentDailyTrx[checks.agent] === undefined
        ? undefined
        : agentDayKey(checks.agent, deps.now())
      : settings.dailyLimitTrx === undefined
        ? undefined
        : spendKey(checks.actor, deps.now());
  return [
    ...priceListKeys(checks.prices ?? []),
    ...activationKeys(checks.activation ?? []),
    ...(dailyKey === undefined ? [] : [dailyKey]),
    ...(checks.balance === false ? [] : BALANCE_KEYS),
  ];
}

/**
 * The cap a quote breaks (OPS_MAX_ORDER_TRX, the daily limit), as a first quote says it; else
 * undefined. A re-quote and an approval's decision obey the same rules through it.
 */
export async function capRefusal(
  deps: Pick<Deps, "store" | "settings" | "now">,
  actor: Actor | string,
  quoteTrx: string,
  noun?: string,
  reads?: StoreReads,
): Promise<string | undefined> {
  const { maxOrderTrx, dailyLimitTrx } = deps.settings;
  const check = await checkSpend({
    store: deps.store,
    actor,
    quoteTrx,
    settings: { ...(maxOrderTrx && { maxOrderTrx }), ...(dailyLimitTrx && { dailyLimitTrx }) },
    now: deps.now,
    ...(reads && { reads }),
  });
  if (check.ok) return undefined;
  return noun === undefined ? check.line : check.line.replace("This order", noun);
}

/**
 * An agent's request against the caps before anything is posted: OPS_MAX_ORDER_TRX, and its own
 * daily budget (OPS_AGENT_TOKENS' fourth field): what its confirmed requests were charged today
 * (settled from the ledger) plus what is held for those confirmed and not charged yet. Requests
 * still awaiting a Confirm hold nothing; the Confirm decides again against the same budget.
 * The confirming person's own daily cap is decided at their Confirm.
 */
async function agentBudgetCheck(
  deps: Pick<CoreDeps, "store" | "now" | "settings">,
  agent: string,
  quoteTrx: string,
  reads: StoreReads,
): Promise<string | undefined> {
  const quoteSun = trxToSun(quoteTrx);
  const perOrder = perOrderRefusal(quoteSun, deps.settings);
  if (perOrder !== undefined) return perOrder;
  const dailyTrx = deps.settings.agentDailyTrx[agent];
  if (dailyTrx === undefined) return undefined;
  const spent = new Big((await reads.get(agentDayKey(agent, deps.now()))) ?? "0");
  if (spent.plus(quoteSun).lte(trxToSun(dailyTrx))) return undefined;
  return agentBudgetRefusal(quoteSun, spent, { name: agent, dailyTrx });
}

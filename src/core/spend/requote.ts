import type { ComplianceVerdict } from "../../service/compliance.js";
import type { ActionContext } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { UserError } from "../errors.js";
import { recordConfirmed } from "../ledger/record.js";
import { getPriceList } from "../pricing/price-list.js";
import type { Reply } from "../reply.js";
import { tell } from "../spend-lifecycle.js";
import { capRefusal } from "./check-at-quote.js";
import type { Confirmed } from "./confirmed.js";
import { type ConfirmDecision, type LiveQuote, priceRoseLine } from "./decide-at-confirm.js";
import type { SpendDefinition } from "./definition.js";
import { offerQuote } from "./offer-quote.js";
import { outcomeLine } from "./outcome-render.js";

/**
 * The pipeline's answers that show a quote again (src/core/spend/pipeline.ts): a price rise, and a
 * run whose addresses are newly on the deny list. Either obeys the rules of a first quote: above
 * OPS_MAX_ORDER_TRX or the daily cap, the refusal line and no Confirm.
 */
type Deps = CoreDeps;

/** A refusal: one line, audited; a run on many addresses drops the newly blocked ones and is quoted again. */
export async function refused<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  who: Confirmed,
  decision: Extract<ConfirmDecision<Q>, { kind: "refused" }>,
): Promise<Reply> {
  const smaller =
    decision.reason === "deny-list" && decision.blocked && def.without
      ? def.without(payload, decision.blocked)
      : undefined;
  if (smaller !== undefined) return quoteWithout(ctx, def, payload, smaller, who, decision);
  await recordRefusal(ctx.deps, def, who, payload, decision.line);
  return outcomeLine(decision.line);
}

/** A Confirm that placed nothing: one `refusal` entry of the ledger (its hold, if any, given back). */
function recordRefusal<P, Q extends LiveQuote>(
  deps: Deps,
  def: SpendDefinition<P, Q>,
  who: Confirmed,
  payload: P,
  line: string,
) {
  return recordConfirmed(deps, {
    kind: "refusal",
    confirmationId: who.confirmationId,
    chargedTrx: "0",
    result: "refused",
    audit: { ...def.audit(who, payload), result: "failed", message: line },
  });
}

interface Requote<P, Q> {
  /** The payload as quoted before (audited) and at the new quote (on the fresh button). */
  before: P;
  next: P;
  quote: Q;
  notice: string;
  /** The notice when a cap refuses the new quote (no Confirm). */
  capped(cap: string): string;
  /** The audit message when the new quote is offered. */
  audited: string;
  verdicts?: readonly ComplianceVerdict[];
  warnings?: readonly string[];
}

/**
 * The quote again, under the rules of a first quote: above OPS_MAX_ORDER_TRX or the daily cap it
 * is the refusal line and no Confirm; otherwise the new quote with fresh buttons in the old one's place.
 */
async function quoteAgain<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  who: Confirmed,
  again: Requote<P, Q>,
): Promise<Reply> {
  const { deps } = ctx;
  const cap = await capRefusal(deps, who.actor, again.quote.costTrx);
  const line = cap === undefined ? undefined : again.capped(cap);
  const message = line === undefined ? again.audited : `not ${def.word}: ${line}`;
  await recordRefusal(deps, def, who, again.before, message);
  if (line !== undefined) {
    // No new button: whoever follows the spend (an agent's get_request) learns it was refused.
    const ref = { spend: def.name, confirmationId: who.confirmationId, requester: who.requester };
    await tell(deps, { ...ref, status: "refused", line });
    return outcomeLine(line);
  }
  const { tokens } = await offerQuote(deps, ctx.invocation, def, again.next, {
    ...(who.requester && { requester: who.requester }),
    replaces: who.confirmationId,
  });
  return def.requoted(deps, {
    payload: again.next,
    quote: again.quote,
    notice: again.notice,
    verdicts: again.verdicts ?? [],
    warnings: again.warnings ?? [],
    tokens,
  });
}

/** The price rose: nothing placed; the new quote in place (with a Confirm only within the caps). */
export function rose<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  who: Confirmed,
  decision: Extract<ConfirmDecision<Q>, { kind: "rose" }>,
): Promise<Reply> {
  const quoted = def.quoteTrx(payload);
  const notice = priceRoseLine(decision, quoted, def.word);
  const moved = `The price rose by ${decision.byTrx} TRX (${quoted} → ${decision.quote.costTrx} TRX): ${decision.why}.`;
  return quoteAgain(ctx, def, who, {
    before: payload,
    next: def.atQuote(payload, decision.quote),
    quote: decision.quote,
    notice,
    capped: (cap) => `${moved} Nothing was ${def.word}. ${cap}`,
    audited: def.roseAudit ? def.roseAudit(notice) : `not ordered: ${notice}`,
    verdicts: decision.verdicts,
    warnings: decision.warnings,
  });
}

/** Newly blocked addresses left out of a run: the rest priced live and quoted again. */
async function quoteWithout<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  smaller: P,
  who: Confirmed,
  decision: Extract<ConfirmDecision<Q>, { kind: "refused" }>,
): Promise<Reply> {
  const live = def.live(ctx.deps, smaller);
  let quote: Q;
  try {
    quote = live.requote(await getPriceList(ctx.deps, live.services));
  } catch (error) {
    if (error instanceof UserError) return outcomeLine(error.message);
    throw error;
  }
  const blocked = (decision.blocked ?? []).map((v) => v.address);
  const them = blocked.length === 1 ? "it" : "them";
  const left = `Now on the deny list: ${blocked.join(", ")}. Nothing was ${def.word}`;
  return quoteAgain(ctx, def, who, {
    before: payload,
    next: def.atQuote(smaller, quote),
    quote,
    notice: `${left}; this is the run quoted again without ${them} (left out below), confirm again to go on.`,
    capped: (cap) => `${left}; quoted again without ${them}: ${cap}`,
    audited: `not ordered: ${decision.line}`,
  });
}

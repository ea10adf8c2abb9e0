import { isServiceError } from "../../service/errors.js";
import type { Order5mOutcome } from "../../service/order5m.js";
import { ACTION_TTL_MS, CANCEL_KIND, createActionGroup } from "../actions.js";
import { agentOutcomeOfApproval, noteAgentOutcome } from "../agents/index.js";
import { askApproval } from "../approvals/index.js";
import type { ActionContext, ActionHandler } from "../command.js";
import type { Actor } from "../invocation.js";
import { expectNotifications } from "../notifications/expectations.js";
import { context, type Reply } from "../reply.js";
import { getBalance } from "../spend/balance-cache.js";
import { type Confirmed, confirmedBy, whoName } from "../spend/confirmed.js";
import {
  type ConfirmDecision,
  type ConfirmSpend,
  decideAtConfirm,
  priceFellLine,
  priceRoseLine,
} from "../spend/decide-at-confirm.js";
import { order5mFailureLine } from "../spend/energy-errors.js";
import {
  auditBase,
  ENERGY_CONFIRM_KIND,
  type EnergyConfirmPayload,
  energyConfirmPayloadSchema,
} from "../spend/energy-payload.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { denyListText } from "../spend/preflight.js";
import { buildEnergyQuote, type EnergyQuote, ROUTE_SERVICE } from "../spend/quote.js";
import { auditSpend } from "../spend/record.js";
import { withResend } from "../spend/resend.js";
import { releaseSpend } from "../spend/reservation.js";
import { confirmOrchestrator } from "./confirm-orchestrator.js";
import { renderEnergyQuote } from "./energy-render.js";
import { afterOrder5m, order5mKeyOf, order5mOutcomeUnknown, renderPlaced } from "./order5m-flow.js";
import { reconcileOrder5m, UNKNOWN_YET_LINE } from "./reconcile-order5m.js";

/**
 * Confirm of an energy quote. The core has claimed the button group atomically and stored the
 * click as a durable intent, so this runs once per quote, or again after a crash; the idempotency
 * key derives from the confirmation, so a resend, a reconciliation or a recovery can never place
 * a second order. What is ordered is decided here, on the live price and deny list
 * (src/core/spend/decide-at-confirm.ts): a price rise orders nothing and shows the new quote, a
 * fall orders at the lower price, and the live amount is what the caps hold.
 */
export const energyConfirmAction: ActionHandler = {
  kind: ENERGY_CONFIRM_KIND,
  role: "operator",
  durable: true,
  async run(ctx, payload) {
    const parsed = energyConfirmPayloadSchema.safeParse(payload);
    if (!parsed.success) throw new Error(`bad ${ENERGY_CONFIRM_KIND} payload: ${parsed.error.message}`);
    const p = parsed.data;
    const who = confirmedBy(ctx);
    const decision = await decideAtConfirm(ctx.deps, energySpend(who.confirmationId, who.actor, p));
    switch (decision.kind) {
      case "refused":
        await auditSpend(ctx.deps, { ...auditBase(who, p), result: "failed", message: decision.line });
        // Agent hook (src/core/agents/): the request an agent made is refused at Confirm.
        await noteAgentOutcome(ctx.deps, p.requester, { status: "refused", line: decision.line });
        return outcomeLine(decision.line);
      case "rose":
        return offerNewQuote(ctx, p, decision);
      case "approval": {
        const live = livePayload(p, decision.quote);
        const reply = await askApproval(ctx, { kind: "energy", quoteTrx: live.quoteTrx, payload: live });
        // Agent hook: a second person's Approve is awaited (the console has none: refused).
        await noteAgentOutcome(ctx.deps, p.requester, agentOutcomeOfApproval(ctx, reply.summary));
        return reply;
      }
      case "go":
        return placeEnergy(ctx, who, livePayload(p, decision.quote), decision.fellByTrx);
    }
  },
};

/** The energy spend of a confirmation, for the decision at Confirm (also used by Approve). */
export function energySpend(
  confirmationId: string,
  actor: Actor,
  p: EnergyConfirmPayload,
  approval: "ask" | "approved" = "ask",
): ConfirmSpend<EnergyQuote> {
  return {
    confirmationId,
    actor,
    quoted: { costTrx: p.quoteTrx, periodLabel: p.periodLabel },
    addresses: [p.address],
    services: [ROUTE_SERVICE[p.route]],
    requote: (list) => buildEnergyQuote(list, p.address, p.amount),
    word: "ordered",
    approval,
  };
}

/** The confirmed payload at the live quote: what is ordered and recorded. */
export const livePayload = (p: EnergyConfirmPayload, quote: EnergyQuote): EnergyConfirmPayload => ({
  ...p,
  route: quote.route,
  quoteTrx: quote.costTrx,
  unitPriceSun: quote.unitPriceSun,
  periodLabel: quote.periodLabel,
});

/**
 * Places the order the decision allowed (its amount reserved). `fellByTrx`: the price fell since
 * the quote, said under the outcome.
 */
export async function placeEnergy(
  ctx: ActionContext,
  who: Confirmed,
  p: EnergyConfirmPayload,
  fellByTrx?: string,
): Promise<Reply> {
  const reply =
    p.route === "order5m" ? await confirmOrder5m(ctx, who, p) : await confirmOrchestrator(ctx, who, p);
  if (fellByTrx === undefined) return reply;
  return { ...reply, blocks: [...reply.blocks, context(priceFellLine(fellByTrx, p.quoteTrx, "ordered"))] };
}

/** The price rose: nothing ordered; the new quote with fresh buttons takes the old one's place. */
async function offerNewQuote(
  ctx: ActionContext,
  p: EnergyConfirmPayload,
  decision: Extract<ConfirmDecision<EnergyQuote>, { kind: "rose" }>,
): Promise<Reply> {
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  const quote = decision.quote;
  const notice = priceRoseLine(decision, p.quoteTrx, "ordered");
  await auditSpend(deps, {
    ...auditBase(confirmedBy(ctx), p),
    result: "failed",
    message: `not ordered: ${notice}`,
  });
  const group = await createActionGroup(deps.store, { conversation, createdBy: actor, now: deps.now }, [
    { kind: ENERGY_CONFIRM_KIND, payload: livePayload(p, quote), role: "operator" },
    { kind: CANCEL_KIND, payload: {}, role: "operator" },
  ]);
  const { tokens } = group;
  // Agent hook: the request now waits on this new quote's buttons.
  await noteAgentOutcome(deps, p.requester, {
    status: "awaiting_confirmation",
    confirmationId: group.confirmationId,
    expiresAt: deps.now() + ACTION_TTL_MS,
  });
  const verdict = decision.verdicts[0];
  return renderEnergyQuote({
    quote,
    balance: await getBalance(deps),
    denyList: verdict ? denyListText(verdict) : "clean (not on any deny list)",
    warnings: decision.warnings,
    notice,
    tokens: { confirm: tokens[0] ?? "", cancel: tokens[1] ?? "" },
  });
}

async function confirmOrder5m(ctx: ActionContext, who: Confirmed, p: EnergyConfirmPayload): Promise<Reply> {
  const { deps } = ctx;
  const idempotencyKey = order5mKeyOf(who.confirmationId, p);
  await expectNotifications(ctx.deps, who.conversation, { kind: "order5m", address: p.address });
  let outcome: Order5mOutcome;
  try {
    outcome = await withResend(
      () => deps.service.order5m.create({ amount: p.amount, receiveAddress: p.address, idempotencyKey }),
      { logger: deps.logger, endpoint: "order5m.create" },
    );
  } catch (error) {
    deps.logger.warn({ err: error, confirmationId: who.confirmationId }, "energy order not confirmed");
    if (order5mOutcomeUnknown(error)) {
      // The hold stays: the order may exist. The reconciler posts the outcome when it is known.
      const retryAfterMs = isServiceError(error) ? error.retryAfterMs : undefined;
      await reconcileOrder5m(deps, who, p, retryAfterMs, ctx.invocation.messageId);
      return outcomeLine(UNKNOWN_YET_LINE);
    }
    const line = order5mFailureLine(error);
    await releaseSpend(deps, who.confirmationId);
    await auditSpend(deps, { ...auditBase(who, p), result: "failed", message: line });
    // Agent hook: the order failed.
    await noteAgentOutcome(deps, p.requester, { status: "failed", line, confirmedBy: whoName(who.actor) });
    return outcomeLine(line);
  }
  await deps.faults?.("after-answer");
  await afterOrder5m(deps, who, p, outcome);
  return renderPlaced(deps, who, p, outcome);
}

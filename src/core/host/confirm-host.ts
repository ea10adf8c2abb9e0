import { isServiceError } from "../../service/errors.js";
import type { HostInfinityStarted, HostReply } from "../../service/host-mode.js";
import { CANCEL_KIND, createActionGroup } from "../actions.js";
import { askApproval } from "../approvals/index.js";
import type { ActionContext, ActionHandler } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { UserError } from "../errors.js";
import type { Actor } from "../invocation.js";
import { expectNotifications } from "../notifications/expectations.js";
import type { Reply } from "../reply.js";
import { getBalance } from "../spend/balance-cache.js";
import { type Confirmed, confirmedBy } from "../spend/confirmed.js";
import {
  type ConfirmDecision,
  type ConfirmSpend,
  decideAtConfirm,
  priceRoseLine,
} from "../spend/decide-at-confirm.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { denyListText } from "../spend/preflight.js";
import { buildHostQuote, type HostQuote } from "../spend/quote.js";
import { auditSpend } from "../spend/record.js";
import { hostFailureLine } from "./host-errors.js";
import {
  HOST_CONFIRM_KIND,
  type HostConfirmPayload,
  hostCallbackUrl,
  hostConfirmPayloadSchema,
} from "./host-payload.js";
import { NO_CALLBACK_WARNING, renderHostQuote } from "./host-render.js";
import {
  hostAnswerLost,
  hostAuditBase,
  hostNotStarted,
  hostStartedBefore,
  hostStartedNow,
  repeatedStartAnswer,
} from "./host-start-flow.js";
import { hostAddPendingLine, hostUnknownYetLine, reconcileHostStart } from "./reconcile-host-start.js";

export { type HostConfirmPayload, hostConfirmPayloadSchema };

/**
 * Registers the address (with the callback URL when the bot has a public URL), then starts
 * infinity mode. Starting carries no idempotency key, so a lost answer (no answer in time, a
 * network error, a 5xx) is never resent blindly: the user is told once that the outcome is not
 * known yet, and the reconciler (reconcile-host-start.ts) asks again with backoff, reading the
 * spec's answers (-5 already active, -6 open order: it started), and posts the outcome.
 * Durable: a recovery after a crash starts again, and "already active" then means the run that
 * died had started it. Whether to start is decided here, on the live first-cycle rate and deny
 * list (src/core/spend/decide-at-confirm.ts): a rise starts nothing and shows the new quote.
 */
export const hostConfirmAction: ActionHandler = {
  kind: HOST_CONFIRM_KIND,
  role: "operator",
  durable: true,
  async run(ctx, payload) {
    const parsed = hostConfirmPayloadSchema.safeParse(payload);
    if (!parsed.success) throw new Error(`bad ${HOST_CONFIRM_KIND} payload: ${parsed.error.message}`);
    const p = parsed.data;
    const who = confirmedBy(ctx);
    const decision = await decideAtConfirm(ctx.deps, hostSpend(ctx.deps, who.confirmationId, who.actor, p));
    switch (decision.kind) {
      case "refused":
        return hostNotStarted(ctx.deps, who, p, decision.line);
      case "rose":
        return offerNewHostQuote(ctx, p, decision);
      case "approval": {
        const live = { ...p, firstCycleTrx: decision.quote.costTrx };
        return askApproval(ctx, { kind: "host", quoteTrx: live.firstCycleTrx, payload: live });
      }
      case "go":
        return placeHostStart(ctx, who, { ...p, firstCycleTrx: decision.quote.costTrx });
    }
  },
};

export type HostLiveQuote = HostQuote & { costTrx: string };

/** The Host Mode start of a confirmation, for the decision at Confirm (also used by Approve). */
export function hostSpend(
  deps: Pick<CoreDeps, "now">,
  confirmationId: string,
  actor: Actor,
  p: HostConfirmPayload,
  approval: "ask" | "approved" = "ask",
): ConfirmSpend<HostLiveQuote> {
  return {
    confirmationId,
    actor,
    quoted: { costTrx: p.firstCycleTrx },
    addresses: [p.address],
    services: ["host"],
    requote(list) {
      const host = list.data.services.host;
      if (!host)
        throw new UserError(
          "The price list has no Host Mode rates right now; try again later. Nothing was started.",
        );
      const quote = buildHostQuote(host, deps.now());
      return { ...quote, costTrx: quote.firstCycleTrx };
    },
    word: "started",
    approval,
  };
}

/** The price rose: nothing started; the new quote with fresh buttons takes the old one's place. */
async function offerNewHostQuote(
  ctx: ActionContext,
  p: HostConfirmPayload,
  decision: Extract<ConfirmDecision<HostLiveQuote>, { kind: "rose" }>,
): Promise<Reply> {
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  const notice = priceRoseLine(decision, p.firstCycleTrx, "started");
  await auditSpend(deps, { ...hostAuditBase(confirmedBy(ctx), p), result: "failed", message: notice });
  const live: HostConfirmPayload = { address: p.address, firstCycleTrx: decision.quote.costTrx };
  const { tokens } = await createActionGroup(deps.store, { conversation, createdBy: actor, now: deps.now }, [
    { kind: HOST_CONFIRM_KIND, payload: live, role: "operator" },
    { kind: CANCEL_KIND, payload: {}, role: "operator" },
  ]);
  const verdict = decision.verdicts[0];
  const warnings = [...decision.warnings];
  if (hostCallbackUrl(deps.settings) === undefined) warnings.push(NO_CALLBACK_WARNING);
  return renderHostQuote({
    address: p.address,
    quote: decision.quote,
    balance: await getBalance(deps),
    denyList: verdict ? denyListText(verdict) : "clean (not on any deny list)",
    warnings,
    notice,
    ...(deps.settings.dailyLimitTrx !== undefined && { dailyLimitTrx: deps.settings.dailyLimitTrx }),
    tokens: { confirm: tokens[0] ?? "", cancel: tokens[1] ?? "" },
  });
}

/**
 * Registers the address and starts infinity mode, for a start the decision allowed (its first
 * cycle reserved). A lost answer is reconciled; a recovery's "already active" means this
 * confirmation's earlier run started it.
 */
export async function placeHostStart(
  ctx: ActionContext,
  who: Confirmed,
  p: HostConfirmPayload,
): Promise<Reply> {
  const { deps } = ctx;
  const since = deps.now();
  const callbackUrl = hostCallbackUrl(deps.settings);
  const reconcile = (step: "add" | "start", error: unknown) =>
    reconcileHostStart(deps, who, p, {
      step,
      since,
      replaces: ctx.invocation.messageId,
      retryAfterMs: isServiceError(error) ? error.retryAfterMs : undefined,
    });
  await expectNotifications(deps, who.conversation, { kind: "host", address: p.address });
  try {
    await deps.service.hostMode.add({ address: p.address, ...(callbackUrl && { callbackUrl }) });
  } catch (error) {
    if (hostAnswerLost(error)) {
      // The hold stays: the reconciler registers it again, then starts.
      deps.logger.warn({ err: error, address: p.address }, "Host Mode registration not answered");
      await reconcile("add", error);
      return outcomeLine(hostAddPendingLine(p.address));
    }
    return hostNotStarted(deps, who, p, hostFailureLine(error, p.address, "add"), error);
  }
  let started: HostReply<HostInfinityStarted>;
  try {
    started = await deps.service.hostMode.infinityStart(p.address);
  } catch (error) {
    if (hostAnswerLost(error)) {
      // The hold stays: Host Mode may run. The reconciler posts the outcome when it is known.
      deps.logger.warn({ err: error, address: p.address }, "Host Mode start not answered");
      await reconcile("start", error);
      return outcomeLine(hostUnknownYetLine(p.address));
    }
    if (ctx.recovered && repeatedStartAnswer(error) === "started") {
      const how = "it was started by this confirmation before the bot restarted";
      return hostStartedBefore(deps, who, p, how);
    }
    const line = `${hostFailureLine(error, p.address, "start")} (The address is registered for Host Mode, but infinity mode did not start.)`;
    return hostNotStarted(deps, who, p, line, error);
  }
  return hostStartedNow(deps, who, p, started);
}

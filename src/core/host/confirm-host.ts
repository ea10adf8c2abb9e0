import { isServiceError } from "../../service/errors.js";
import type { HostInfinityStarted, HostReply } from "../../service/host-mode.js";
import { approvalGate } from "../approvals/gate.js";
import type { ActionContext, ActionHandler } from "../command.js";
import type { Confirmed } from "../energy/energy-payload.js";
import { outcomeLine } from "../energy/energy-render.js";
import { expectNotifications } from "../notifications/expectations.js";
import { reserveSpend } from "../spend/reservation.js";
import { followUpConversation } from "../threads/follow-ups.js";
import { hostFailureLine } from "./host-errors.js";
import {
  HOST_CONFIRM_KIND,
  type HostConfirmPayload,
  hostCallbackUrl,
  hostConfirmPayloadSchema,
} from "./host-payload.js";
import {
  hostAnswerLost,
  hostNotStarted,
  hostStartedBefore,
  hostStartedNow,
  repeatedStartAnswer,
} from "./host-start-flow.js";
import { hostAddPendingLine, hostUnknownYetLine, reconcileHostStart } from "./reconcile-host-start.js";

export { HOST_CONFIRM_KIND, type HostConfirmPayload, hostCallbackUrl, hostConfirmPayloadSchema };

/**
 * Registers the address (with the callback URL when the bot has a public URL), then starts
 * infinity mode. Starting carries no idempotency key, so a lost answer (no answer in time, a
 * network error, a 5xx) is never resent blindly: the user is told once that the outcome is not
 * known yet, and the reconciler (reconcile-host-start.ts) asks again with backoff, reading the
 * spec's answers (-5 already active, -6 open order: it started), and posts the outcome.
 * Durable: a recovery after a crash starts again, and "already active" then means the run that
 * died had started it.
 */
export const hostConfirmAction: ActionHandler = {
  kind: HOST_CONFIRM_KIND,
  role: "operator",
  durable: true,
  async run(ctx, payload) {
    const parsed = hostConfirmPayloadSchema.safeParse(payload);
    if (!parsed.success) throw new Error(`bad ${HOST_CONFIRM_KIND} payload: ${parsed.error.message}`);
    const p = parsed.data;
    const approval = await approvalGate(ctx, { kind: "host", quoteTrx: p.firstCycleTrx, payload: p });
    if (approval) return approval;
    const { deps } = ctx;
    const since = deps.now();
    const who = confirmedBy(ctx);
    const spend = await reserveSpend(deps, {
      confirmationId: who.confirmationId,
      actor: who.actor,
      quoteTrx: p.firstCycleTrx,
      settings: deps.settings,
    });
    if (!spend.ok) return hostNotStarted(deps, who, p, `Not started: ${spend.line}`);
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
  },
};

const confirmedBy = (ctx: ActionContext): Confirmed => ({
  confirmationId: ctx.record.confirmationId,
  actor: ctx.invocation.actor,
  conversation: ctx.invocation.conversation,
  // Cycle callbacks go into the thread of the message that shows this start.
  followUp: followUpConversation(ctx.invocation),
});

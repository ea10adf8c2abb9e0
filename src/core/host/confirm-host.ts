import { z } from "zod";
import { isServiceError } from "../../service/errors.js";
import type { HostInfinityStarted, HostReply } from "../../service/host-mode.js";
import { approvalGate } from "../approvals/gate.js";
import type { ActionContext, ActionHandler } from "../command.js";
import type { CoreSettings } from "../deps.js";
import { whoName } from "../energy/energy-payload.js";
import { outcomeLine } from "../energy/energy-render.js";
import { markHostActive } from "../home.js";
import { expectNotifications } from "../notifications/expectations.js";
import { rememberOrigin } from "../origins.js";
import type { Reply } from "../reply.js";
import { auditSpend } from "../spend/record.js";
import { releaseSpend, reserveSpend, settleSpend } from "../spend/reservation.js";
import { followUpConversation } from "../threads/follow-ups.js";
import { autoWatch } from "../watch/hooks.js";
import { hostFailureLine } from "./host-errors.js";
import { renderHostStarted } from "./host-render.js";

/** The Start button of a Host Mode quote. */
export const HOST_CONFIRM_KIND = "host.confirm";

export const hostConfirmPayloadSchema = z.object({
  address: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
  firstCycleTrx: z.string().regex(/^\d+(\.\d+)?$/),
});
export type HostConfirmPayload = z.infer<typeof hostConfirmPayloadSchema>;

/** `${PUBLIC_URL}/callbacks/host/${HOST_CALLBACK_TOKEN}`, or undefined without PUBLIC_URL. Secret: never shown. */
export function hostCallbackUrl(
  settings: Pick<CoreSettings, "publicUrl" | "hostCallbackToken">,
): string | undefined {
  if (!settings.publicUrl) return undefined;
  return `${settings.publicUrl.replace(/\/+$/, "")}/callbacks/host/${encodeURIComponent(settings.hostCallbackToken)}`;
}

const auditBase = (ctx: ActionContext, p: HostConfirmPayload) => ({
  actor: ctx.invocation.actor,
  conversation: ctx.invocation.conversation,
  verb: "host start",
  address: p.address,
  quoteTrx: p.firstCycleTrx,
});

/**
 * Registers the address (with the callback URL when the bot has a public URL), then starts
 * infinity mode. Starting carries no idempotency key, so it is never resent blindly: a lost answer
 * is reported as unknown, and running the command again is safe (an active address answers -5).
 * Durable: a recovery after a crash starts again, and an "already active" (-5) answer then means
 * the first run started it.
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
    const spend = await reserveSpend(deps, {
      confirmationId: ctx.record.confirmationId,
      actor: ctx.invocation.actor,
      quoteTrx: p.firstCycleTrx,
      settings: deps.settings,
    });
    if (!spend.ok) return fail(ctx, p, `Not started: ${spend.line}`);
    const callbackUrl = hostCallbackUrl(deps.settings);
    await expectNotifications(deps, ctx.invocation.conversation, { kind: "host", address: p.address });
    try {
      await deps.service.hostMode.add({ address: p.address, ...(callbackUrl && { callbackUrl }) });
    } catch (error) {
      return fail(ctx, p, hostFailureLine(error, p.address, "add"), error);
    }
    let started: HostReply<HostInfinityStarted>;
    try {
      started = await deps.service.hostMode.infinityStart(p.address);
    } catch (error) {
      if (ctx.recovered && isServiceError(error) && error.code === -5) return startedBefore(ctx, p);
      const line = `${hostFailureLine(error, p.address, "start")} (The address is registered for Host Mode, but infinity mode did not start.)`;
      return fail(ctx, p, line, error);
    }
    await afterStart(ctx, p, started);
    return renderHostStarted(started.data, {
      callback: callbackUrl !== undefined,
      by: whoName(ctx.invocation.actor),
      message: started.message,
    });
  },
};

async function fail(
  ctx: ActionContext,
  p: HostConfirmPayload,
  line: string,
  error?: unknown,
): Promise<Reply> {
  if (error !== undefined) ctx.deps.logger.warn({ err: error, address: p.address }, "host start failed");
  // Nothing was started (a lost answer says so too: Host Mode charges only after a start).
  await releaseSpend(ctx.deps, ctx.record.confirmationId);
  await auditSpend(ctx.deps, { ...auditBase(ctx, p), result: "failed", message: line });
  return outcomeLine(line);
}

/** A recovery found Host Mode active: the run that died had started it. */
async function startedBefore(ctx: ActionContext, p: HostConfirmPayload): Promise<Reply> {
  const { deps } = ctx;
  try {
    await rememberOrigin(deps.store, "host", p.address, ctx.invocation.conversation);
    await markHostActive(deps, p.address);
    await settleSpend(deps, ctx.record.confirmationId, ctx.invocation.actor, p.firstCycleTrx);
  } catch (error) {
    deps.logger.error({ err: error, address: p.address }, "Host Mode started, but its bookkeeping failed");
  }
  const line = `Host Mode is active for ${p.address}: it was started by this confirmation before the bot restarted (confirmed by ${whoName(ctx.invocation.actor)}).`;
  await auditSpend(deps, { ...auditBase(ctx, p), result: "ok", message: line });
  return outcomeLine(line);
}

async function afterStart(
  ctx: ActionContext,
  p: HostConfirmPayload,
  started: HostReply<HostInfinityStarted>,
) {
  const { deps } = ctx;
  const orderId = String(started.data.order_id);
  try {
    // Cycle callbacks for this address are posted where Host Mode was started.
    await rememberOrigin(deps.store, "host", p.address, followUpConversation(ctx.invocation));
    // The App Home lists the addresses in Host Mode.
    await markHostActive(deps, p.address);
    await autoWatch(deps, ctx.invocation.conversation, p.address, ctx.invocation.actor);
    // The first cycle is charged moments after the start; later cycles are not known in advance.
    await settleSpend(deps, ctx.record.confirmationId, ctx.invocation.actor, p.firstCycleTrx);
  } catch (error) {
    deps.logger.error({ err: error, address: p.address }, "Host Mode started, but its bookkeeping failed");
  }
  await auditSpend(deps, {
    ...auditBase(ctx, p),
    result: "ok",
    message: `${started.message}; infinity order ${orderId}`,
    orderIds: [orderId],
  });
}

import { isServiceError } from "../../service/errors.js";
import type { HostInfinityStarted, HostReply } from "../../service/host-mode.js";
import type { ActionContext } from "../command.js";
import { expectNotifications } from "../notices/expectations.js";
import type { Confirmed } from "../spend/confirmed.js";
import type { Placed } from "../spend/definition.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { hostFailureLine } from "./host-errors.js";
import { type HostConfirmPayload, hostCallbackUrl } from "./host-payload.js";
import {
  hostAnswerLost,
  hostNotStarted,
  hostStartedBefore,
  hostStartedNow,
  repeatedStartAnswer,
} from "./host-start-flow.js";
import { hostAddPendingLine, hostUnknownYetLine, reconcileHostStart } from "./reconcile-host-start.js";

/**
 * Registers the address (with the callback URL when the bot has a public URL), then starts
 * infinity mode. Starting carries no idempotency key, so a lost answer (no answer in time, a
 * network error, a 5xx) is never resent blindly: the user is told once that the outcome is not
 * known yet, and the reconciler (reconcile-host-start.ts) asks again with backoff, reading the
 * spec's answers (-5 already active, -6 open order: it started), and posts the outcome.
 * Durable: a recovery after a crash starts again, and "already active" then means the run that
 * died had started it. Whether to start is decided by the pipeline (src/core/spend/pipeline.ts,
 * the definition is host-spend.ts) on the live first-cycle rate and deny list.
 */
/**
 * Registers the address and starts infinity mode, for a start the decision allowed (its first
 * cycle reserved). A lost answer is reconciled; a recovery's "already active" means this
 * confirmation's earlier run started it.
 */
export async function placeHostStart(
  ctx: ActionContext,
  who: Confirmed,
  p: HostConfirmPayload,
): Promise<Placed> {
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
      return { result: "pending", reply: outcomeLine(hostAddPendingLine(p.address)) };
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
      return { result: "pending", reply: outcomeLine(hostUnknownYetLine(p.address)) };
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

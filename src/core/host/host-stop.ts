import { isServiceError } from "../../service/errors.js";
import { clearAlertOf } from "../alerts/index.js";
import type { CoreDeps } from "../deps.js";
import type { Actor, ConversationRef } from "../invocation.js";
import { errorReply, type Reply } from "../reply.js";
import { whoName } from "../spend/confirmed.js";
import { auditSpend } from "../spend/spend-audit.js";
import { markHostStopped } from "./active.js";
import { hostFailureLine } from "./host-errors.js";
import { recordHostEvent } from "./host-events.js";
import { renderHostStopped } from "./host-render.js";

/** The alerts a stop answers: the address turned blocked, and its cycles took a day past the cap. */
const HOST_ALERT_KINDS = ["host.blocked", "host.over-cap"] as const;

/**
 * `host stop <address>`, however it was asked (the command, a Stop Host Mode button): the service
 * call, the bot's record, the alerts it answers resolved in place, the audit entry. `pressed` is the
 * message whose button asked for it: the click's own reply takes that message's place.
 */
export async function stopHostMode(
  deps: CoreDeps,
  who: { actor: Actor; conversation: ConversationRef },
  address: string,
  pressed?: string,
): Promise<Reply> {
  const base = { ...who, verb: "host stop", address };
  try {
    const stopped = await deps.service.hostMode.stop(address);
    await stoppedHere(deps, address, stopped.data.orders_closed);
    await answerAlerts(deps, address, `Host Mode stopped by ${whoName(who.actor)}`, pressed);
    await auditSpend(deps, {
      ...base,
      result: "ok",
      message: `${stopped.message}; ${stopped.data.orders_closed} order(s) closed`,
    });
    return renderHostStopped(stopped.data, whoName(who.actor));
  } catch (error) {
    // Already inactive: what was wanted, and a start still being reconciled must not run it.
    if (isServiceError(error) && error.code === -7) await stoppedHere(deps, address, 0);
    const line = hostFailureLine(error, address, "stop");
    deps.logger.warn({ err: error, address }, "host stop failed");
    await auditSpend(deps, { ...base, result: "failed", message: line });
    return errorReply(line);
  }
}

/** Its alerts are answered: resolved in place (a failure here never fails the stop that happened). */
async function answerAlerts(deps: CoreDeps, address: string, note: string, pressed?: string): Promise<void> {
  for (const kind of HOST_ALERT_KINDS) {
    await clearAlertOf(deps, kind, address, note, pressed).catch((error: unknown) =>
      deps.logger.warn({ err: error, address, kind }, "Host Mode stopped; its alert was not resolved"),
    );
  }
}

/** The address is off: the App Home list, and the record a start reconciler reads before it asks again. */
async function stoppedHere(deps: CoreDeps, address: string, ordersClosed: number): Promise<void> {
  try {
    await recordHostEvent(deps.store, address, { event: "stopped", at: deps.now(), ordersClosed });
    await markHostStopped(deps, address);
  } catch (error) {
    deps.logger.warn(
      { err: error, address },
      "Host Mode stopped, but the bot's record of it was not updated",
    );
  }
}

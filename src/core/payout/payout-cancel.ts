import type { OrchestratorStatus } from "../../service/orchestrator.js";
import type { ActionHandler } from "../command.js";
import { toUserLine } from "../errors.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { auditSpend } from "../spend/record.js";
import { PAYOUT_CANCEL_KIND, payoutCancelPayloadSchema } from "./payout-payload.js";
import { renderProgress } from "./payout-progress-render.js";
import { markCancelled, readCancelled, readRun } from "./payout-run.js";
import { auditOf } from "./payout-tracking.js";

/**
 * Cancel of a running payout: `POST /apiv2/orchestrator/cancel/{key}` removes every address not
 * yet picked up (one already processing goes on). The button is claimed once by the core, for
 * operators; the progress message then shows who cancelled and how many, and loses the button.
 */
export const payoutCancelAction: ActionHandler = {
  kind: PAYOUT_CANCEL_KIND,
  role: "operator",
  async run(ctx, raw) {
    const { idempotencyKey: key } = payoutCancelPayloadSchema.parse(raw);
    const { deps } = ctx;
    const run = await readRun(deps, key);
    if (!run) return outcomeLine("This payout run is unknown or too old; nothing was cancelled.");
    let cancelled: number;
    try {
      cancelled = (await deps.service.orchestrator.cancel(key)).data.cancelled;
    } catch (error) {
      deps.logger.warn({ err: error, idempotencyKey: key }, "payout run cancel failed");
      const line = `The cancel did not reach the orchestrator (${toUserLine(error).replace(/\.$/, "")}); the run goes on. Key ${key}.`;
      await auditSpend(deps, { ...auditOf(run), verb: "energy cancel", result: "failed", message: line });
      return outcomeLine(line);
    }
    await markCancelled(deps, key, ctx.invocation.actor, cancelled);
    await auditSpend(deps, {
      ...auditOf(run),
      actor: ctx.invocation.actor,
      verb: "energy cancel",
      result: "ok",
      message: `payout run ${key}: ${cancelled} queued addresses cancelled`,
    });
    let status: OrchestratorStatus | undefined;
    try {
      status = await deps.service.orchestrator.status(key);
    } catch (error) {
      deps.logger.warn({ err: error, idempotencyKey: key }, "payout status after cancel not read");
    }
    const cancel = await readCancelled(deps, key);
    return renderProgress({ run, cancel, ...(status && { status }) });
  },
};

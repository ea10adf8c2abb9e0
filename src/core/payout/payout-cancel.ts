import type { OrchestratorStatus } from "../../service/orchestrator.js";
import { NotCarriedOut } from "../buttons/not-carried-out.js";
import type { ActionHandler } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { toUserLine } from "../errors.js";
import type { Actor } from "../invocation.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { auditSpend } from "../spend/spend-audit.js";
import { PAYOUT_CANCEL_KIND, payoutCancelPayloadSchema } from "./payout-payload.js";
import { renderProgress } from "./payout-progress-render.js";
import { type CancelMark, markCancelled, type PayoutRun, readCancelled, readRun } from "./payout-run.js";
import { auditOf } from "./payout-tracking.js";

/**
 * Cancel of a running payout: `POST /apiv2/orchestrator/cancel/{key}` removes every address not
 * yet picked up (one already processing goes on). The button is claimed once by the core, for
 * operators; the progress message then shows who cancelled and how many, and loses the button.
 * A cancel that could not be carried out (the store or the service failed) uses nothing up: the
 * presser gets one line and the button stays for a second try (cancelling twice cancels nothing more).
 */
export const payoutCancelAction: ActionHandler = {
  kind: PAYOUT_CANCEL_KIND,
  role: "operator",
  async run(ctx, raw) {
    const { idempotencyKey: key } = payoutCancelPayloadSchema.parse(raw);
    const { deps } = ctx;
    const run = await readRun(deps, key).catch((error: unknown) => {
      deps.logger.warn({ err: error, idempotencyKey: key }, "payout run not read for its cancel");
      throw new NotCarriedOut(
        `Storage did not answer, so the cancel was not sent; the run goes on. Key ${key}.`,
      );
    });
    if (!run) return outcomeLine("This payout run is unknown or too old; nothing was cancelled.");
    let cancelled: number;
    try {
      cancelled = (await deps.service.orchestrator.cancel(key)).data.cancelled;
    } catch (error) {
      deps.logger.warn({ err: error, idempotencyKey: key }, "payout run cancel failed");
      const line = `The cancel did not reach the orchestrator (${toUserLine(error).replace(/\.$/, "")}); the run goes on. Key ${key}.`;
      await auditSpend(deps, {
        ...auditOf(run),
        verb: "energy cancel",
        result: "failed",
        message: line,
      }).catch((auditError: unknown) =>
        deps.logger.warn({ err: auditError }, "failed payout cancel not audited"),
      );
      throw new NotCarriedOut(line, { cause: error });
    }
    const cancel = await recordCancel(deps, run, ctx.invocation.actor, cancelled);
    let status: OrchestratorStatus | undefined;
    try {
      status = await deps.service.orchestrator.status(key);
    } catch (error) {
      deps.logger.warn({ err: error, idempotencyKey: key }, "payout status after cancel not read");
    }
    return renderProgress({ run, cancel, ...(status && { status }) });
  },
};

/**
 * The cancel was carried out: its mark and audit entry are written, and the progress shows the
 * first mark of the run. Storage failing now changes nothing of what was cancelled: it is logged,
 * and the progress shows this cancel.
 */
async function recordCancel(
  deps: CoreDeps,
  run: PayoutRun,
  by: Actor,
  cancelled: number,
): Promise<CancelMark> {
  const mark: CancelMark = { by, at: deps.now(), cancelled };
  try {
    await markCancelled(deps, run.key, by, cancelled);
    await auditSpend(deps, {
      ...auditOf(run),
      actor: by,
      verb: "energy cancel",
      result: "ok",
      message: `payout run ${run.key}: ${cancelled} queued addresses cancelled`,
    });
    return (await readCancelled(deps, run.key)) ?? mark;
  } catch (error) {
    deps.logger.warn({ err: error, idempotencyKey: run.key }, "payout cancel carried out but not recorded");
    return mark;
  }
}

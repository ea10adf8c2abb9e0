import { isServiceError } from "../../service/errors.js";
import { FINAL_SCREENING_STATUSES } from "../../service/screening.js";
import { noteScreening } from "../activity/facts.js";
import { screeningFound } from "../cases/index.js";
import type { CoreDeps } from "../deps.js";
import { toUserLine } from "../errors.js";
import { conversationKey } from "../invocation.js";
import { type PollAnswer, pollDelayMs } from "../poll.js";
import type { TrackedJob } from "../ports.js";
import { publicReply, text } from "../reply.js";
import { askerOf } from "./asker.js";
import { renderScreeningOrder } from "./screening-render.js";

/** Takes only the job, so it fits both the jobs' `TrackedHandlers` and the core's handler map. */
export type PollScreeningHandler = (
  job: Extract<TrackedJob, { kind: "poll-screening" }>,
) => Promise<PollAnswer>;

export interface PollScreeningOptions {
  /** Delay before poll `attempt + 1`, or null to stop (default: the jobs' ramp, ~10 minutes in all). */
  delayMs?: (attempt: number) => number | null;
}

/** One notification per order, whichever poll (or a repeated job) sees it final. */
const screeningDedupKey = (clientOrderId: string): string => `screening:${clientOrderId}`;

/**
 * The `poll-screening` handler: reads the order; when it is final, posts the rendered result into
 * the conversation that asked for it. Reads are free and the client's rate limiter paces them.
 * A read the service refuses for good (an order it no longer knows) is posted as one line, so
 * the user is never left waiting; a transient failure is thrown for the job's retries.
 */
export function createPollScreeningHandler(
  deps: CoreDeps,
  options: PollScreeningOptions = {},
): PollScreeningHandler {
  const delayFor = options.delayMs ?? ((attempt: number) => pollDelayMs(attempt));
  return async (job): Promise<PollAnswer> => {
    const id = job.clientOrderId;
    const dedupKey = screeningDedupKey(id);
    let order: Awaited<ReturnType<typeof deps.service.screening.read>>;
    try {
      order = await deps.service.screening.read(id);
    } catch (error) {
      if (isServiceError(error) && error.retryable) throw error;
      deps.logger.warn({ clientOrderId: id, err: error }, "screening poll failed for good");
      const line = `Could not read screening ${id}: ${toUserLine(error)}`;
      await deps.notifier.post(job.conversation, publicReply(line, [text(line)]), dedupKey);
      return { done: true };
    }
    if (FINAL_SCREENING_STATUSES.has(order.order.status)) {
      await noteScreening(deps, order);
      const found = await screeningFound(deps, order, {
        askedBy: await askerOf(deps, id),
        conversation: job.conversation,
      });
      const reply = renderScreeningOrder(order);
      await deps.notifier.post(job.conversation, { ...reply, blocks: [...reply.blocks, ...found] }, dedupKey);
      return { done: true };
    }
    const delayMs = delayFor(job.attempt ?? 0);
    if (delayMs !== null) return { again: true, delayMs };
    deps.logger.warn(
      { clientOrderId: id, conversation: conversationKey(job.conversation) },
      "screening still pending after the polling budget; stopped polling",
    );
    const line = `Screening ${id} has still not finished; the bot stopped waiting for it. Its result stays readable on the service under this order id.`;
    await deps.notifier.post(job.conversation, publicReply(line, [text(line)]), dedupKey);
    return { done: true };
  };
}

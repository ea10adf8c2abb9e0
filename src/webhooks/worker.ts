import type { Logger } from "../core/logger.js";
import { parseNotification } from "../core/notifications/events.js";
import type { NotificationRouter } from "../core/notifications/route.js";
import {
  isPermanentError,
  type JobContext,
  type JobOutcome,
  type JobQueue,
  type JobWorker,
  PermanentJobError,
  type ProcessOptions,
} from "../jobs/queue.js";
import { type InboundJob, WEBHOOK_QUEUE } from "./inbox.js";

/** Routing is a few store reads and a queue add per delivery; the chat sends run in the notify queue. */
const INBOUND_CONCURRENCY = 16;

/**
 * Routing starts at most this many deliveries a second, across all instances. Chat takes about one
 * message a second per conversation and notices are coalesced, so routing faster buys nothing,
 * while a flood of deliveries (the service replaying a backlog) would otherwise take the CPU that
 * accepting them, and people's commands, need. A burst waits in the inbox, stored; a payout run's
 * hundred deliveries are routed within half a second.
 */
const INBOUND_ROUTES_PER_SECOND = 250;

/** Takes stored deliveries off the inbox and hands them to the core's router. */
export function startInboundWorker(
  queues: JobQueue,
  router: NotificationRouter,
  options: { logger: Logger; concurrency?: number; rate?: ProcessOptions["rate"] },
): Promise<JobWorker> {
  const handle = async (job: JobContext<InboundJob>): Promise<JobOutcome<InboundJob>> => {
    const { source, body, key, deferrals } = job.data;
    const notification = parseNotification(source, body);
    try {
      if (notification === undefined) {
        // Verified and readable when it was stored: only a deploy that changed the schemas gets here.
        throw new PermanentJobError(`stored ${source} delivery ${key} is no longer readable`);
      }
      const outcome = await router.route(notification, { deferrals });
      if (outcome === "done") return "done";
      return { laterMs: outcome.laterMs, data: { ...job.data, deferrals: deferrals + 1 } };
    } catch (error) {
      const final = isPermanentError(error) || job.attemptsMade + 1 >= job.maxAttempts;
      const fields = { key, source, attempt: job.attemptsMade + 1, err: error };
      if (final)
        options.logger.error(
          fields,
          "webhook delivery dropped after repeated errors; check the store and the chat adapters (its notification may be missing)",
        );
      else options.logger.warn(fields, "webhook delivery could not be routed yet; it will be retried");
      throw error;
    }
  };
  return queues.process(WEBHOOK_QUEUE, handle, {
    concurrency: options.concurrency ?? INBOUND_CONCURRENCY,
    rate: options.rate ?? { max: INBOUND_ROUTES_PER_SECOND, durationMs: 1_000 },
  });
}

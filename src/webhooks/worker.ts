import { sleep } from "../clock.js";
import type { Logger, NotificationRouter, RouteOutcome } from "../core/index.js";
import { parseNotification } from "../core/index.js";
import {
  isPermanentError,
  type JobContext,
  type JobOutcome,
  type JobQueue,
  type JobWorker,
  PermanentJobError,
} from "../jobs/queue.js";
import {
  addInbound,
  INBOUND_BACKOFF,
  type InboundBatch,
  type InboundDelivery,
  WEBHOOK_QUEUE,
} from "./inbox.js";

/** Routing is a few store reads and a queue add per delivery; the chat sends run in the notify queue. */
const INBOUND_CONCURRENCY = 16;

/**
 * Routing starts at most this many deliveries a second, across all instances. Chat takes about one
 * message a second per conversation and notices are coalesced, so routing faster buys nothing,
 * while a flood of deliveries (the service replaying a backlog) would otherwise take the CPU that
 * accepting them, and people's commands, need. A burst waits in the inbox, stored; a payout run's
 * hundred deliveries are routed at once (the next job waits its share).
 */
const INBOUND_ROUTES_PER_SECOND = 250;
const ROUTE_PACE_KEY = "inbound:route";

export interface InboundWorkerOptions {
  logger: Logger;
  concurrency?: number;
  routesPerSecond?: number;
  /** Waits out the routing pace; injectable so a test can see the waits without taking them. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Takes stored deliveries off the inbox and hands them to the core's router. A job of one delivery
 * is parked ("later") or retried as a whole; in a job of several, the deliveries that must wait for
 * their origin, or failed for now, move to a new job, so the others are not routed again.
 */
export function startInboundWorker(
  queues: JobQueue,
  router: NotificationRouter,
  options: InboundWorkerOptions,
): Promise<JobWorker> {
  const gapMs = 1_000 / (options.routesPerSecond ?? INBOUND_ROUTES_PER_SECOND);
  const wait = options.sleep ?? sleep;

  async function routeOne(d: InboundDelivery): Promise<RouteOutcome> {
    const notification = parseNotification(d.source, d.body);
    // Verified and readable when it was stored: only a deploy that changed the schemas gets here.
    if (notification === undefined)
      throw new PermanentJobError(`stored ${d.source} delivery ${d.key} is no longer readable`);
    return router.route(notification, { deferrals: d.deferrals });
  }

  function logFailure(d: InboundDelivery, error: unknown, attempt: number, final: boolean): void {
    const fields = { key: d.key, source: d.source, attempt, err: error };
    if (final)
      options.logger.error(
        fields,
        "webhook delivery dropped after repeated errors; check the store and the chat adapters (its notification may be missing)",
      );
    else options.logger.warn(fields, "webhook delivery could not be routed yet; it will be retried");
  }

  async function single(job: JobContext<unknown>, d: InboundDelivery): Promise<JobOutcome<InboundBatch>> {
    try {
      const outcome = await routeOne(d);
      if (outcome === "done") return "done";
      return { laterMs: outcome.laterMs, data: { deliveries: [{ ...d, deferrals: d.deferrals + 1 }] } };
    } catch (error) {
      const final = isPermanentError(error) || job.attemptsMade + 1 >= job.maxAttempts;
      logFailure(d, error, job.attemptsMade + 1, final);
      throw error;
    }
  }

  /** One of several: what cannot be finished now, and how long it waits (undefined: finished). */
  async function oneOfMany(
    d: InboundDelivery,
  ): Promise<{ delivery: InboundDelivery; delayMs: number } | undefined> {
    let outcome: RouteOutcome;
    try {
      outcome = await routeOne(d);
    } catch (error) {
      const permanent = isPermanentError(error);
      logFailure(d, error, 1, permanent);
      return permanent ? undefined : { delivery: d, delayMs: INBOUND_BACKOFF.delayMs };
    }
    if (outcome === "done") return undefined;
    return { delivery: { ...d, deferrals: d.deferrals + 1 }, delayMs: outcome.laterMs };
  }

  /**
   * What must wait goes on as new jobs, the ones that wait as long together (a burst of deliveries
   * for orders not recorded yet parks as one job, not one each); the rest are not routed again.
   */
  async function continueLater(waiting: readonly { delivery: InboundDelivery; delayMs: number }[]) {
    const byDelay = new Map<number, InboundDelivery[]>();
    for (const w of waiting) byDelay.set(w.delayMs, [...(byDelay.get(w.delayMs) ?? []), w.delivery]);
    await Promise.all([...byDelay].map(([delayMs, group]) => addInbound(queues, group, delayMs)));
  }

  const handle = async (
    job: JobContext<InboundBatch | InboundDelivery>,
  ): Promise<JobOutcome<InboundBatch>> => {
    const deliveries = deliveriesOf(job.data);
    if (gapMs > 0) {
      const ms = await queues.pace(ROUTE_PACE_KEY, deliveries.length * gapMs);
      if (ms > 0) await wait(ms);
    }
    const [only] = deliveries;
    if (deliveries.length === 1 && only) return single(job, only);
    // A failure here (the store down) retries the whole job; the deliveries already routed find their done marks.
    const waiting = (await Promise.all(deliveries.map(oneOfMany))).filter((w) => w !== undefined);
    await continueLater(waiting);
    return "done";
  };
  return queues.process(WEBHOOK_QUEUE, handle, { concurrency: options.concurrency ?? INBOUND_CONCURRENCY });
}

/** A job stored by a version before batches held one delivery as its data: still routed after an upgrade. */
function deliveriesOf(data: InboundBatch | InboundDelivery): InboundDelivery[] {
  return "deliveries" in data ? data.deliveries : [data];
}

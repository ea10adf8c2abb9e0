import { clearAlertOf, raiseAlert } from "../alerts/index.js";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import type { PollAnswer } from "../poll.js";
import type { TrackedJob } from "../ports.js";
import { code, context, publicReply, text } from "../reply.js";
import { tellDelivered } from "../spend-lifecycle.js";

/**
 * Watching a 5-minute order until the service confirms its delivery on-chain. The webhook
 * listener marks each `delegation.confirmed` with `markDelivered`; ten minutes after the order
 * (the service holds a webhook up to 5 minutes for its hashes, then retries for about a minute)
 * the watch posts a notice when no confirmation was seen.
 */
const DELIVERY_WATCH_DELAY_MS = 10 * 60_000;
/** Longer than any watch, so a late mark still counts. */
const DELIVERED_TTL_MS = 3 * 24 * 60 * 60_000;

const deliveredKey = (orderId: string): string => `delivered:${orderId}`;

/** Marks an order as delivered (called by the webhook listener on `delegation.confirmed`). */
export async function markDelivered(store: CoreDeps["store"], orderId: string): Promise<void> {
  await store.set(deliveredKey(orderId), "1", DELIVERED_TTL_MS);
}

/** The confirmation came after all: marked, and an alert raised for it says so in place. */
export async function deliveryConfirmed(deps: CoreDeps, orderId: string): Promise<void> {
  await markDelivered(deps.store, orderId);
  // Whoever follows the spend (an agent's request) hears of it by order id.
  await tellDelivered(deps, orderId);
  await clearAlertOf(deps, "delivery.unconfirmed", orderId, "the service confirmed the delivery later");
}

export async function wasDelivered(store: CoreDeps["store"], orderId: string): Promise<boolean> {
  return (await store.get(deliveredKey(orderId))) !== null;
}

const deliveryWatchJobId = (orderId: string): string => `watch-delivery:${orderId}`;

/** Schedules the watch of one order; scheduling it twice is a no-op. */
export async function watchDelivery(
  deps: Pick<CoreDeps, "jobs">,
  order: { orderId: string; address: string; conversation: ConversationRef },
  delayMs = DELIVERY_WATCH_DELAY_MS,
): Promise<void> {
  await deps.jobs.schedule(
    { kind: "watch-delivery", ...order },
    { delayMs, jobId: deliveryWatchJobId(order.orderId) },
  );
}

type WatchJob = Extract<TrackedJob, { kind: "watch-delivery" }>;

export function createWatchDeliveryHandler(deps: CoreDeps): (job: WatchJob) => Promise<PollAnswer> {
  return async (job) => {
    if (await wasDelivered(deps.store, job.orderId)) return { done: true };
    deps.logger.warn(
      { orderId: job.orderId, address: job.address },
      "no delivery confirmation seen for an order",
    );
    const minutes = Math.round(DELIVERY_WATCH_DELAY_MS / 60_000);
    const line = `No on-chain delivery confirmation for energy order ${job.orderId} to ${job.address} after ${minutes} minutes.`;
    const reply = publicReply(line, [
      text(
        "No on-chain delivery confirmation for energy order ",
        code(job.orderId),
        " to ",
        code(job.address),
        ` after ${minutes} minutes.`,
      ),
      context(
        "The service confirms a delegation only once its hash is found in a block. Check the delegation link of the order; if it is missing on-chain, contact the service with the order id.",
      ),
    ]);
    const alert = `Delivery not confirmed after ${minutes} min: energy order ${job.orderId} to ${job.address} (details in the order's thread).`;
    await raiseAlert(deps, {
      key: deliveryWatchJobId(job.orderId),
      kind: "delivery.unconfirmed",
      subject: { type: "order", id: job.orderId },
      severity: "warning",
      posts: [
        {
          conversation: job.conversation,
          reply: { ...reply, alert },
          dedupKey: deliveryWatchJobId(job.orderId),
        },
      ],
      alsoFor: "deliveries",
    });
    return { done: true };
  };
}

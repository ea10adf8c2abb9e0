import type { Notification } from "../../service/webhook-events.js";
import { alertDestinationHint } from "../alert-hint.js";
import type { CoreDeps } from "../deps.js";
import { type ConversationRef, conversationKey } from "../invocation.js";
import type { NotificationDefinition, RouteContext, RouteOutcome } from "../notices/definition.js";
import { findExpectation, settleExpectations } from "../notices/expectations.js";
import { postCopies } from "../notices/subscriptions.js";
import { asAlert } from "./notifications-render.js";
import { definitionOf } from "./registry.js";

export type { RouteContext, RouteOutcome };

/**
 * Where a notification goes, and posting it there through the notifier (a durable job): to the
 * conversation that caused it (its definition finds it: the one that placed the order, started
 * Host Mode, asked for the statement), else to the alert channel(s). A definition may deliver to
 * its origin itself (`report.ready` posts the file).
 *
 * The caller is a job (src/webhooks/worker.ts), so this may be run again after a crash at any
 * point: a done mark ends repeats early, and every post carries a dedup key derived from the
 * delivery, so a repeat that slips past the mark still posts nothing twice.
 */
const NOTIFICATION_DONE_TTL_MS = 48 * 3_600_000;
/**
 * A webhook can overtake the command that placed the order (the order's reply is still on its way
 * back, an orchestrator chunk is not polled yet). Only a notification that a spend of this bot
 * expected (see `expectations.ts`) waits this long for its origin, about a minute in all, short
 * steps first; then it goes to the expecting conversation. Anything else is routed at once.
 */
const ORIGIN_GRACE_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000];

export interface NotificationRouterOptions {
  /** Where a notification without a known conversation goes; empty: it is only logged. */
  alerts: readonly ConversationRef[];
  /** How long an expected notification waits for its origin, step by step. */
  originGraceMs?: readonly number[];
}

const doneKey = (key: string): string => `notification:done:${key}`;

const UNROUTED_WARNING_EVERY_MS = 60_000;

export function createNotificationRouter(deps: CoreDeps, options: NotificationRouterOptions) {
  const graceMs = options.originGraceMs ?? ORIGIN_GRACE_MS;
  // A flood of deliveries with nowhere to go is one warning a minute (with a count), not one each.
  let unroutedSince: { at: number; more: number } | undefined;

  async function toOrigin(
    definition: NotificationDefinition,
    n: Notification,
    key: string,
    origin: ConversationRef,
    ctx: RouteContext,
  ): Promise<RouteOutcome> {
    const delivered = await definition.deliverToOrigin?.(deps, n, origin, ctx);
    if (delivered !== undefined) return delivered;
    await deps.notifier.post(
      origin,
      definition.render(n, deps.settings.explorerTxUrl),
      `notification:${key}`,
    );
    return "done";
  }

  async function toAlerts(definition: NotificationDefinition, n: Notification, key: string): Promise<void> {
    if (options.alerts.length === 0) {
      const now = deps.now();
      if (unroutedSince !== undefined && now - unroutedSince.at < UNROUTED_WARNING_EVERY_MS) {
        unroutedSince.more += 1;
        return;
      }
      deps.logger.warn(
        { key, event: n.event, alsoSinceLastWarning: unroutedSince?.more ?? 0 },
        `notification for no known conversation, and no alert channel: ${alertDestinationHint(deps.settings)}`,
      );
      unroutedSince = { at: now, more: 0 };
      return;
    }
    const reply = asAlert(definition.render(n, deps.settings.explorerTxUrl));
    for (const conversation of options.alerts) {
      await deps.notifier.post(conversation, reply, `notification:${key}:${conversationKey(conversation)}`);
    }
  }

  /**
   * The origin when recorded; else the expecting conversation once the grace is over ("wait"
   * before); null when nothing here expected it: the alert channel, at once. Read together with
   * the done mark (one round trip); nothing is written before the mark is known.
   */
  async function lookup(
    definition: NotificationDefinition,
    n: Notification,
    key: string,
  ): Promise<{ done: boolean; origin: ConversationRef | null; expecting: ConversationRef | null }> {
    const [mark, origin, expecting] = await Promise.all([
      deps.store.get(doneKey(key)),
      definition.origin(deps, n),
      findExpectation(deps.store, definition.expects(n)),
    ]);
    return { done: mark !== null, origin, expecting };
  }

  function destinationOf(
    found: { origin: ConversationRef | null; expecting: ConversationRef | null },
    ctx: RouteContext,
  ): { conversation: ConversationRef; via: "origin" | "expectation" } | "wait" | null {
    if (found.origin !== null) return { conversation: found.origin, via: "origin" };
    if (found.expecting === null) return null;
    if (ctx.deferrals < graceMs.length) return "wait";
    return { conversation: found.expecting, via: "expectation" };
  }

  /** Runs every step to its end, even when one fails; then throws the first failure. */
  async function allOf(steps: readonly (Promise<unknown> | undefined)[]): Promise<void> {
    const failed = (await Promise.allSettled(steps)).find((r) => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  }

  return {
    async route(n: Notification, ctx: RouteContext): Promise<RouteOutcome> {
      const definition = definitionOf(n);
      const key = definition.key(n);
      const looked = await lookup(definition, n, key);
      if (looked.done) return "done";
      const found = destinationOf(looked, ctx);
      // Before any wait: bookkeeping (the delivery watch, Host Mode state) whatever happens to the post.
      const receipt = definition.onReceipt?.(deps, n);
      if (found === "wait") {
        await receipt;
        return { laterMs: graceMs[ctx.deferrals] ?? 0 };
      }
      const origin = found?.conversation ?? null;
      let outcome: RouteOutcome = "done";
      // The bookkeeping runs beside the post (neither reads what the other writes).
      await allOf([
        receipt,
        found?.via === "origin" ? settleExpectations(deps.store, definition.expects(n)) : undefined,
        origin
          ? toOrigin(definition, n, key, origin, ctx).then((o) => {
              outcome = o;
            })
          : toAlerts(definition, n, key),
      ]);
      if (outcome === "done") {
        // `subscribe deliveries`: a copy of every delivery notice, wherever the original went.
        if (definition.source === "orders") {
          const posted = origin ? [origin] : options.alerts;
          const reply = definition.render(n, deps.settings.explorerTxUrl);
          await postCopies(deps, "deliveries", posted, reply, `notification:${key}`);
        }
        await deps.store.set(doneKey(key), "1", NOTIFICATION_DONE_TTL_MS);
        // Dropped for want of an alert channel: toAlerts said so in its own warning.
        if (origin || options.alerts.length > 0)
          deps.logger.info(
            {
              key,
              event: n.event,
              to: origin ? conversationKey(origin) : "alerts",
              via: found?.via ?? "alerts",
              deferrals: ctx.deferrals,
            },
            "notification routed",
          );
      }
      return outcome;
    },
  };
}

export type NotificationRouter = ReturnType<typeof createNotificationRouter>;

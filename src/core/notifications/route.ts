import type { CoreDeps } from "../deps.js";
import { noteHostCycle } from "../digest/facts.js";
import { markDelivered } from "../energy/delivery-watch.js";
import { markHostStopped } from "../home.js";
import { type ConversationRef, conversationKey } from "../invocation.js";
import { findOrigin } from "../origins.js";
import { deliverStatementFile, type StatementOutcome } from "../statement/statement-tracking.js";
import { type Notification, notificationKey } from "./events.js";
import { findExpectation, settleExpectations } from "./expectations.js";
import { asAlert, renderNotification } from "./notifications-render.js";

/**
 * Where a notification goes, and posting it there through the notifier (a durable job):
 * deliveries and activations to the conversation that placed the order, Host Mode callbacks to
 * the one that started Host Mode for the address, `report.ready` (with the file) to the one that
 * asked for the statement, anything else to the alert channel(s).
 *
 * The caller is a job (src/webhooks/worker.ts), so this may be run again after a crash at any
 * point: a done mark ends repeats early, and every post carries a dedup key derived from the
 * delivery, so a repeat that slips past the mark still posts nothing twice.
 */
export const NOTIFICATION_DONE_TTL_MS = 48 * 3_600_000;
/**
 * A webhook can overtake the command that placed the order (the order's reply is still on its way
 * back, an orchestrator chunk is not polled yet). Only a notification that a spend of this bot
 * expected (see `expectations.ts`) waits this long for its origin, about a minute in all, short
 * steps first; then it goes to the expecting conversation. Anything else is routed at once.
 */
export const ORIGIN_GRACE_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000];
/** `report.ready` read back as not yet done: ask again this many times, then leave it to the poller. */
const STATEMENT_PENDING_RETRIES = 5;
const STATEMENT_PENDING_DELAY_MS = 5_000;

export type RouteOutcome = "done" | { laterMs: number };

export interface RouteContext {
  /** How many times this notification was deferred already (origin grace, statement pending). */
  deferrals: number;
}

export interface NotificationRouterOptions {
  /** Where a notification without a known conversation goes; empty: it is only logged. */
  alerts: readonly ConversationRef[];
  /** How long an expected notification waits for its origin, step by step. */
  originGraceMs?: readonly number[];
  /** Default: the statement tracker's `deliverStatementFile` (download, sha256 check, post). */
  deliverStatement?: (
    deps: CoreDeps,
    orderNo: string,
    conversation: ConversationRef,
  ) => Promise<StatementOutcome>;
}

const doneKey = (key: string): string => `notification:done:${key}`;

export function createNotificationRouter(deps: CoreDeps, options: NotificationRouterOptions) {
  const graceMs = options.originGraceMs ?? ORIGIN_GRACE_MS;
  const deliverStatement = options.deliverStatement ?? deliverStatementFile;

  async function toOrigin(n: Notification, key: string, origin: ConversationRef, ctx: RouteContext) {
    if (n.event === "report.ready" && (n.status === undefined || n.status === "done")) {
      const outcome = await deliverStatement(deps, n.order_id, origin);
      if (outcome === "pending" && ctx.deferrals < STATEMENT_PENDING_RETRIES) {
        return { laterMs: STATEMENT_PENDING_DELAY_MS };
      }
      return "done" as const;
    }
    await deps.notifier.post(
      origin,
      renderNotification(n, deps.settings.explorerTxUrl),
      `notification:${key}`,
    );
    return "done" as const;
  }

  async function toAlerts(n: Notification, key: string): Promise<void> {
    if (options.alerts.length === 0) {
      deps.logger.warn(
        { key, event: n.event },
        "notification for no known conversation, and no alert channel: set ALERT_SLACK_CHANNEL or ALERT_TELEGRAM_CHAT",
      );
      return;
    }
    const reply = asAlert(renderNotification(n, deps.settings.explorerTxUrl));
    for (const conversation of options.alerts) {
      await deps.notifier.post(conversation, reply, `notification:${key}:${conversationKey(conversation)}`);
    }
  }

  /**
   * The origin when recorded; else the expecting conversation once the grace is over ("wait"
   * before); null when nothing here expected it: the alert channel, at once.
   */
  async function destinationOf(
    n: Notification,
    ctx: RouteContext,
  ): Promise<{ conversation: ConversationRef; via: "origin" | "expectation" } | "wait" | null> {
    const origin = await originOf(deps, n);
    if (origin !== null) {
      await settleExpectations(deps.store, n);
      return { conversation: origin, via: "origin" };
    }
    const expecting = await findExpectation(deps.store, n);
    if (expecting === null) return null;
    if (ctx.deferrals < graceMs.length) return "wait";
    return { conversation: expecting, via: "expectation" };
  }

  return {
    async route(n: Notification, ctx: RouteContext): Promise<RouteOutcome> {
      const key = notificationKey(n);
      if ((await deps.store.get(doneKey(key))) !== null) return "done";
      // Before any wait: the delivery watch must see the confirmation whatever happens to the post.
      if (n.event === "delegation.confirmed") await markDelivered(deps.store, n.order_id);
      if (n.event === "host_paused") await markHostStopped(deps, n.address);
      if (n.event === "host.cycle") await noteHostCycle(deps, n);
      const found = await destinationOf(n, ctx);
      if (found === "wait") return { laterMs: graceMs[ctx.deferrals] ?? 0 };
      const origin = found?.conversation ?? null;
      let outcome: RouteOutcome = "done";
      if (origin) outcome = await toOrigin(n, key, origin, ctx);
      else await toAlerts(n, key);
      if (outcome === "done") {
        await deps.store.set(doneKey(key), "1", NOTIFICATION_DONE_TTL_MS);
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

/** The conversation that caused the notification, when the bot recorded one. */
async function originOf(deps: CoreDeps, n: Notification): Promise<ConversationRef | null> {
  switch (n.event) {
    case "delegation.confirmed":
    case "bandwidth.delegated":
      return findOrigin(deps.store, "order", n.order_id);
    case "activation.confirmed": {
      const own = await findOrigin(deps.store, "order", n.order_id);
      // `source` is the energy order that needed the activation (or a service tag, found nowhere).
      return own ?? (n.source ? findOrigin(deps.store, "order", n.source) : null);
    }
    case "report.ready":
      return findOrigin(deps.store, "report", n.order_id);
    case "host.cycle":
    case "host_paused":
      return findOrigin(deps.store, "host", n.address);
  }
}

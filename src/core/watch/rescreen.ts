import Big from "big.js";
import { requestIdempotencyKey } from "../../service/idempotency.js";
import { FINAL_SCREENING_STATUSES, type ScreeningOrder } from "../../service/screening.js";
import { raiseAlert } from "../alerts/index.js";
import { screeningFound } from "../cases/index.js";
import type { CoreDeps } from "../deps.js";
import { formatShare } from "../format.js";
import { type ConversationRef, conversationKey } from "../invocation.js";
import { pickProvider } from "../screening/index.js";
import { checkCharge, recordCharge } from "../spend/charge.js";
import { claimBudgetNotice, monthOf } from "./budget.js";
import { scheduledRescreen } from "./rescreen-spend.js";
import {
  readScreens,
  readWatch,
  SCREEN_PERIOD_MS,
  type ScreenResult,
  type ScreenSchedule,
  saveScreen,
  watchersOf,
} from "./state.js";
import { renderBudgetUsed, renderRescreen } from "./watch-render.js";

/**
 * Opt-in AML re-screens of watched addresses (billed), through the same client, limiter and
 * screening v2 path as `screen`. At most RESCREENS_PER_TICK per tick of the poller, one after the
 * other: at the default interval that is 3 calls a minute against the shared 150/min, so an
 * interactive `screen` always finds room. The oldest due go first and each is next due one period
 * after it ran, so many watches added at once spread themselves over the period at that pace
 * (3 × 1440 ticks a day at the default interval).
 */
const RESCREENS_PER_TICK = 3;
const NETWORK = "trx";
const RETRY_MS = 3_600_000;
const LEVELS = ["none", "low", "medium", "high"];

export async function rescreenDue(deps: CoreDeps, alerts: readonly ConversationRef[]): Promise<number> {
  const budgetTrx = deps.settings.watch.budgetTrx;
  if (budgetTrx === undefined) return 0;
  const now = deps.now();
  const due = [...(await readScreens(deps.store))]
    .filter(([, s]) => s.nextAt <= now)
    .sort((a, b) => a[1].nextAt - b[1].nextAt)
    .slice(0, RESCREENS_PER_TICK);
  let done = 0;
  for (const [address, schedule] of due) {
    const choice = await pickProvider(deps, NETWORK);
    if (!choice.ok) {
      deps.logger.warn({ address, reason: choice.line }, "watch: no screening provider for a re-screen");
      return done;
    }
    const check = await checkCharge(deps, scheduledRescreen, {
      actor: `watch:${address}`,
      priceTrx: choice.provider.price_trx ?? "0",
    });
    if (!check.ok) {
      if (check.budget) await tellBudgetUsed(deps, alerts, check.budget.usedTrx, check.budget.budgetTrx);
      return done;
    }
    try {
      await rescreenOne(deps, address, schedule, choice.provider.provider, choice.provider.price_trx);
      done += 1;
    } catch (error) {
      // A refused or failed order must not be retried every tick: try again in an hour.
      deps.logger.warn({ err: error, address }, "watch: re-screen failed; retrying in an hour");
      await saveScreen(deps.store, address, { ...schedule, nextAt: now + RETRY_MS });
    }
  }
  return done;
}

async function tellBudgetUsed(
  deps: CoreDeps,
  alerts: readonly ConversationRef[],
  usedTrx: string,
  budgetTrx: string,
): Promise<void> {
  if (!(await claimBudgetNotice(deps.store, deps.now()))) return;
  deps.logger.warn({ usedTrx, budgetTrx }, "watch: re-screening budget used up; paused until next month");
  const reply = renderBudgetUsed(usedTrx, budgetTrx);
  await raiseAlert(deps, {
    key: `watch-budget:${monthOf(deps.now())}`,
    kind: "watch.budget",
    subject: { type: "account", id: "rescreen-budget" },
    severity: "warning",
    posts: alerts.map((conversation) => ({ conversation, reply })),
    alsoFor: "watch",
  });
}

async function rescreenOne(
  deps: CoreDeps,
  address: string,
  schedule: ScreenSchedule,
  provider: string,
  priceTrx: string | null,
): Promise<void> {
  // The same due slot always sends the same key: a re-run after a crash cannot pay twice.
  const idempotencyKey = requestIdempotencyKey(`watch-rescreen:${address}:${schedule.nextAt}`);
  const created = await deps.service.screening.create({
    address,
    network: NETWORK,
    provider,
    waitForResult: true,
    idempotencyKey,
  });
  let order = created.order;
  if (!FINAL_SCREENING_STATUSES.has(order.order.status)) {
    order = await deps.service.screening.read(order.order.client_order_id);
  }
  const watchers = await watchersOf(deps.store, address);
  await account(deps, order, address, watchers[0], priceTrx);
  const next: ScreenSchedule = {
    period: schedule.period,
    nextAt: Math.max(deps.now(), schedule.nextAt) + SCREEN_PERIOD_MS[schedule.period],
    ...(schedule.last && { last: schedule.last }),
  };
  if (order.order.status === "completed") {
    const found = await caseOfRescreen(deps, order, watchers);
    const after = resultOf(order, deps.now());
    const reasons = schedule.last ? alertReasons(schedule.last, after, deps.settings.watch.scoreDelta) : [];
    if (reasons.length > 0 && schedule.last) {
      const posts = [];
      for (const conversation of watchers) {
        const entry = await readWatch(deps.store, conversation, address);
        const reply = renderRescreen({
          address,
          ...(entry?.label && { label: entry.label }),
          before: schedule.last,
          after,
          reasons,
        });
        reply.blocks.push(...found);
        const dedupKey = `watch-screen:${order.order.client_order_id}:${conversationKey(conversation)}`;
        posts.push({ conversation, reply, dedupKey });
      }
      await raiseAlert(deps, {
        key: `watch-screen:${order.order.client_order_id}`,
        kind: "watch.rescreen",
        subject: { type: "address", id: address },
        severity: "warning",
        posts,
        alsoFor: "watch",
      });
    }
    next.last = after;
  } else if (order.order.status !== "skipped") {
    deps.logger.warn(
      { address, status: order.order.status },
      "watch: a re-screen did not complete; next one as scheduled",
    );
  }
  await saveScreen(deps.store, address, next);
}

/** A charged re-screen in the ledger (the month's budget reads its total) and the audit log, once per order. */
async function account(
  deps: CoreDeps,
  order: ScreeningOrder,
  address: string,
  where: ConversationRef | undefined,
  priceTrx: string | null,
): Promise<void> {
  const id = order.order.client_order_id;
  const charged = order.billing.charged ? order.billing.charged_amount : "0";
  const message = `${order.order.status}; charged ${charged} ${order.billing.charged_currency}`;
  const chargedTrx = order.billing.charged && order.billing.charged_currency === "TRX" ? charged : "0";
  await recordCharge(deps, scheduledRescreen, {
    id: `screening:${id}`,
    actor: `watch:${address}`,
    requester: "watchlist",
    address,
    chargedTrx,
    result: order.order.status === "failed" && chargedTrx === "0" ? "failed" : "ordered",
    orderIds: [id],
    detail: message,
    audit: {
      actor: "watchlist:rescreen",
      conversation: where ?? "watchlist",
      verb: "watch rescreen",
      address,
      ...(priceTrx && { quoteTrx: priceTrx }),
      result: order.order.status === "failed" ? "failed" : "ok",
      message,
      orderIds: [id],
    },
  });
}

function resultOf(order: ScreeningOrder, at: number): ScreenResult {
  const top = [...order.exposure].sort((a, b) => Number(b.share_fraction) - Number(a.share_fraction))[0];
  return {
    score: order.risk.score,
    scaleMax: order.risk.scale.max,
    level: order.risk.level,
    sanctioned: order.sanctions?.self === true || order.sanctioned_entities.length > 0,
    ...(top && { topExposure: `${top.category} ${formatShare(top.share_fraction)} (${top.direction})` }),
    at,
  };
}

/** Why a re-screen is worth an alert: a higher level, a `sanctioned` flip, a large score move. */
function alertReasons(before: ScreenResult, after: ScreenResult, scoreDelta: number): string[] {
  const reasons: string[] = [];
  if (LEVELS.indexOf(after.level) > LEVELS.indexOf(before.level)) {
    reasons.push(`level ${before.level} → ${after.level}`);
  }
  if (before.sanctioned !== after.sanctioned) {
    reasons.push(after.sanctioned ? "now sanctioned" : "no longer sanctioned");
  }
  const move = new Big(after.score ?? "0").minus(before.score ?? "0").abs();
  if (move.gte(scoreDelta)) reasons.push(`score ${before.score ?? "none"} → ${after.score ?? "none"}`);
  return reasons;
}

/** A re-screen at a case level opens (or adds to) the address's case: the line goes with its alert. */
async function caseOfRescreen(deps: CoreDeps, order: ScreeningOrder, watchers: readonly ConversationRef[]) {
  const first = watchers[0];
  return screeningFound(deps, order, {
    askedBy: "the bot (scheduled re-screen)",
    ...(first && { conversation: first }),
  });
}

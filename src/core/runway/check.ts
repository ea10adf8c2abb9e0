import Big from "big.js";
import { botSpentLast24h, hoursLeft, keepSample, rateOf, readSamples } from "../activity/rate.js";
import { alertDestinationHint } from "../alert-hint.js";
import { clearAlertOf, raiseAlert } from "../alerts/index.js";
import { readAccount } from "../balance/account.js";
import { withBalanceChart } from "../chart/index.js";
import type { CoreDeps } from "../deps.js";
import { formatAmount, formatDecimal } from "../format.js";
import type { ConversationRef } from "../invocation.js";
import { formatHours, type RunwayView, renderRunwayAlert, renderRunwayRecovered } from "./runway-render.js";

/**
 * One balance/runway check (the scheduled job runs it every OPS_RUNWAY_INTERVAL_MIN). The state
 * ("low" or "ok") is kept in the store: an alert is posted when it turns low, a recovery when it
 * turns ok again, nothing while it stays, so a long low spell is one alert, not one per interval.
 */
export interface RunwaySettings {
  /** OPS_LOW_BALANCE_TRX. */
  lowBalanceTrx?: string;
  /** OPS_RUNWAY_ALERT_HOURS. */
  alertHours?: number;
}

export interface RunwayCheckOptions {
  settings: RunwaySettings;
  /** The alert destination (ALERT_SLACK_CHANNEL / ALERT_TELEGRAM_CHAT). */
  alerts: readonly ConversationRef[];
}

export type RunwayOutcome = "unknown" | "ok" | "low" | "alerted" | "recovered";

const STATE_KEY = "runway:state";

export const runwayEnabled = (s: RunwaySettings): boolean =>
  s.lowBalanceTrx !== undefined || s.alertHours !== undefined;

function reasonsOf(view: Omit<RunwayView, "reasons">, s: RunwaySettings): string[] {
  const reasons: string[] = [];
  if (s.lowBalanceTrx !== undefined && new Big(view.balanceTrx).lt(s.lowBalanceTrx)) {
    reasons.push(
      `The balance is ${formatAmount(view.balanceTrx)}, below ${formatAmount(s.lowBalanceTrx)} (OPS_LOW_BALANCE_TRX).`,
    );
  }
  if (s.alertHours && view.hours?.lt(s.alertHours)) {
    reasons.push(
      `At the current spend rate it lasts ${formatHours(view.hours)}, below ${formatDecimal(String(s.alertHours))} hours (OPS_RUNWAY_ALERT_HOURS).`,
    );
  }
  return reasons;
}

export async function checkRunway(deps: CoreDeps, options: RunwayCheckOptions): Promise<RunwayOutcome> {
  const now = deps.now();
  const account = await readAccount(deps);
  if (!account.balance.known) {
    deps.logger.warn({ reason: account.balance.reason }, "runway check skipped: the balance is unknown");
    return "unknown";
  }
  const samples =
    account.info && account.infoAt !== undefined
      ? await keepSample(
          deps.store,
          account.infoAt,
          String(account.info.stats.total_trx_spent),
          String(account.info.stats.balance),
        )
      : await readSamples(deps.store);
  const rate = rateOf(await botSpentLast24h(deps, now), samples);
  const balanceTrx = account.balance.balanceTrx;
  const base = { balanceTrx, rate, hours: hoursLeft(balanceTrx, rate) };
  const view: RunwayView = {
    ...base,
    ...(account.info && { depositAddress: account.info.user_info.deposit_address }),
    reasons: reasonsOf(base, options.settings),
  };
  const state = view.reasons.length > 0 ? "low" : "ok";
  const previous = (await deps.store.get(STATE_KEY)) ?? "ok";
  if (state === previous) return state;
  await deps.store.set(STATE_KEY, state);
  const reply =
    state === "low"
      ? await withBalanceChart(deps, renderRunwayAlert(view), options.settings)
      : renderRunwayRecovered(view);
  if (options.alerts.length === 0) {
    deps.logger.warn(
      { state },
      `balance runway crossed a level, and no alert channel: ${alertDestinationHint(deps.settings)}`,
    );
  }
  const posts = options.alerts.map((conversation) => ({
    conversation,
    reply,
    dedupKey: `runway:${state}:${now}:${conversation.platform}:${conversation.id}`,
  }));
  if (state === "low") {
    const subject = { type: "account", id: "balance" };
    await raiseAlert(deps, {
      key: `runway:low:${now}`,
      kind: "runway.low",
      subject,
      severity: "critical",
      posts,
    });
  } else {
    await clearAlertOf(deps, "runway.low", "balance", reply.summary);
    for (const post of posts) await deps.notifier.post(post.conversation, post.reply, post.dedupKey);
  }
  deps.logger.info({ state, balanceTrx }, "balance runway crossed an alert level");
  return state === "low" ? "alerted" : "recovered";
}

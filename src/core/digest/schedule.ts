import { utcDay } from "../activity/facts.js";
import { alertDestinationHint } from "../alert-hint.js";
import { withSpendChart } from "../chart/index.js";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { postCopies } from "../notices/subscriptions.js";
import { renderDigest } from "./digest-render.js";
import { buildDigest } from "./summary.js";

/**
 * The scheduled digest: at OPS_DIGEST_AT (UTC) the last complete UTC day is posted to the alert
 * destination. A mark per day in the store makes it once per day whichever instance, restart or
 * late run gets there.
 */
const DAY_MS = 24 * 3_600_000;
const POSTED_TTL_MS = 3 * DAY_MS;

/** Milliseconds from `now` to the next `atMin` minutes after 00:00 UTC (a full day when it is now). */
export function msUntilDigest(now: number, atMin: number): number {
  const midnight = Date.parse(`${utcDay(now)}T00:00:00Z`);
  let next = midnight + atMin * 60_000;
  if (next <= now) next += DAY_MS;
  return next - now;
}

/** The day a digest run at `now` covers: the UTC day before the last digest time. */
export function digestDayAt(now: number, atMin: number): string {
  return utcDay(now - atMin * 60_000 - DAY_MS);
}

export async function postDailyDigest(
  deps: CoreDeps,
  options: { atMin: number; alerts: readonly ConversationRef[] },
): Promise<"posted" | "already"> {
  const day = digestDayAt(deps.now(), options.atMin);
  if (!(await deps.store.setIfNotExists(`digest:posted:${day}`, "1", POSTED_TTL_MS))) return "already";
  const reply = await withSpendChart(deps, renderDigest(await buildDigest(deps, day)), day);
  if (options.alerts.length === 0) {
    deps.logger.warn({ day }, `daily digest has no destination: ${alertDestinationHint(deps.settings)}`);
  }
  for (const conversation of options.alerts) {
    await deps.notifier.post(
      conversation,
      reply,
      `digest:${day}:${conversation.platform}:${conversation.id}`,
    );
  }
  await postCopies(deps, "digest", options.alerts, reply, `digest:${day}`);
  deps.logger.info({ day }, "daily digest posted");
  return "posted";
}

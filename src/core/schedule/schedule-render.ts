import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { pageNote, pageOf } from "../paging.js";
import { formatCount } from "../parse/echo.js";
import { context, header, publicReply, type Reply, text } from "../reply.js";
import { describeTiming, nextOccurrence, whenText } from "./recurrence.js";
import { ordersIn, readLast, readState, timingOf } from "./standing-orders.js";

/** Lines of one page: each a text block, so a page fits every platform's message (Slack: 50 blocks). */
const PAGE_SIZE = 20;

/** `schedule list [page]`: id, what, when, next run, last outcome, who created it. */
export async function listReply(deps: CoreDeps, conversation: ConversationRef, page = 1): Promise<Reply> {
  const all = await ordersIn(deps.store, conversation);
  const shown = pageOf(all, page, PAGE_SIZE);
  const orders = shown.shown;
  if (all.length === 0) {
    const line = "No standing orders here. Add one with schedule energy <address> <amount> at <HH:MM>.";
    return publicReply(line, [text(line)]);
  }
  const lines = await Promise.all(
    orders.map(async (order) => {
      const [state, last] = await Promise.all([
        readState(deps.store, order.id),
        readLast(deps.store, order.id),
      ]);
      const paused = state?.state === "paused";
      const next = paused ? undefined : nextOccurrence(timingOf(order), deps.now());
      const by = order.createdBy.displayName ?? `${order.createdBy.platform}:${order.createdBy.userId}`;
      const parts = [
        `${order.id}${paused ? ` (paused${state?.why ? `: ${state.why}` : ""}${state?.by ? ` by ${state.by}` : ""})` : ""}`,
        `${formatCount(order.amount)} energy to ${order.address}`,
        describeTiming(timingOf(order)) + (order.maxSun === undefined ? "" : `, max ${order.maxSun} SUN`),
        `next ${next === undefined ? "none" : whenText(next)}`,
        `last ${last ? `${whenText(last.occurrence)}: ${last.outcome}` : "none yet"}`,
        `by ${by}`,
      ];
      return parts.join(" · ");
    }),
  );
  const summary = `${all.length} standing order${all.length === 1 ? "" : "s"}`;
  const note = pageNote("schedule list", shown);
  return publicReply(summary, [
    header("Standing orders (UTC)"),
    ...lines.map((l) => text(l)),
    ...(note === undefined ? [] : [context(note)]),
  ]);
}

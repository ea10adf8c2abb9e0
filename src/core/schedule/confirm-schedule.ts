import type { ActionHandler } from "../command.js";
import { formatCount } from "../parse/echo.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { followUpConversation } from "../threads/follow-ups.js";
import { planNext } from "./occurrences.js";
import { describeTiming, whenText } from "./recurrence.js";
import { SCHEDULE_CONFIRM_KIND, scheduleConfirmPayloadSchema } from "./schedule-payload.js";
import {
  createOrder,
  idsIn,
  MAX_PER_CONVERSATION,
  newOrderId,
  type StandingOrder,
} from "./standing-orders.js";

/**
 * Confirm of a standing order: created once (the button group is claimed once), its first
 * occurrence planned as a delayed job. Nothing is spent here: each run decides and spends.
 */
export const scheduleConfirmAction: ActionHandler = {
  kind: SCHEDULE_CONFIRM_KIND,
  role: "operator",
  async run(ctx, payload) {
    const p = scheduleConfirmPayloadSchema.parse(payload);
    const { deps } = ctx;
    const { actor, conversation } = ctx.invocation;
    if ((await idsIn(deps.store, conversation)).length >= MAX_PER_CONVERSATION) {
      return outcomeLine(
        `Not created: this conversation already has ${MAX_PER_CONVERSATION} standing orders; remove one first.`,
      );
    }
    const order: StandingOrder = {
      v: 1,
      id: await newOrderId(deps.store),
      conversation: { platform: conversation.platform, id: conversation.id },
      thread: followUpConversation(ctx.deps, ctx.invocation),
      address: p.address,
      amount: p.amount,
      atMin: p.atMin,
      repeat: p.repeat,
      ...(p.maxSun !== undefined && { maxSun: p.maxSun }),
      createdBy: actor,
      createdAt: deps.now(),
    };
    const who = actor.displayName ?? `${actor.platform}:${actor.userId}`;
    await createOrder(deps.store, order, who);
    const next = await planNext(deps, order);
    const max = order.maxSun === undefined ? "" : `, max ${order.maxSun} SUN per energy`;
    return outcomeLine(
      `Standing order ${order.id} created by ${who}: ${formatCount(order.amount)} energy to ${order.address} ${describeTiming({ atMin: order.atMin, repeat: order.repeat })}${max}. Next run: ${next === undefined ? "none" : whenText(next)}. Each run's outcome is posted in this thread.`,
    );
  },
};

import { z } from "zod";
import { costTrx } from "../../service/pricing.js";
import type { ActionContext, ActionHandler } from "../command.js";
import { type EnergyConfirmPayload, energyOrder } from "../energy/index.js";
import { UserError } from "../errors.js";
import { actorKey } from "../invocation.js";
import { recordConfirmed } from "../ledger/record.js";
import { buildEnergyQuote, type EnergyQuote } from "../pricing/quote.js";
import { context, type Reply } from "../reply.js";
import { can, roleOf } from "../roles.js";
import type { Confirmed } from "../spend/confirmed.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { runSpend } from "../spend/pipeline.js";
import { SCHEDULE_RUN_KIND } from "./occurrences.js";
import { pauseBlockedOrder } from "./pause-blocked.js";
import { whenText } from "./recurrence.js";
import { readOrder, readState, type StandingOrder, saveLast } from "./standing-orders.js";

/**
 * One run of a standing order, carried out as a durable action (never a button: the occurrence
 * job claims its intent, src/core/schedule/occurrences.ts). It decides like a person's Confirm,
 * through the one pipeline every spend takes (src/core/spend/pipeline.ts): the live price list (skipped when a
 * unit price is above the order's `max`), the deny list re-checked, the approval threshold, the
 * balance, the caps reserved on the live amount for the person who created it. Then it orders
 * through the energy Confirm's own flow (order5m, or the orchestrator above 650,000): the same
 * idempotency keys, reconciliation and audit, the spend marked with the schedule's id.
 */
const payloadSchema = z.object({ scheduleId: z.string(), occurrence: z.number() });

/** A standing order orders at the live price (bounded by `max`): what it "confirmed" is this ceiling. */
const NO_CEILING_TRX = "1000000000";

export const scheduleRunAction: ActionHandler = {
  kind: SCHEDULE_RUN_KIND,
  role: "operator",
  durable: true,
  async run(ctx, payload) {
    const { scheduleId, occurrence } = payloadSchema.parse(payload);
    const { deps } = ctx;
    const order = await readOrder(deps.store, scheduleId);
    const title = `Standing order ${scheduleId}, run of ${whenText(occurrence)}`;
    if (!order) return outcomeLine(`${title}: the standing order no longer exists. Nothing was ordered.`);
    const state = await readState(deps.store, scheduleId);
    // A recovered run may have ordered before its process died: it goes on (same key) whatever
    // was changed since, so the order it may have placed is reconciled, never left unknown.
    const reply =
      state?.state === "active" || ctx.recovered === true
        ? await decideAndOrder(ctx, order)
        : outcomeLine(
            `The standing order ${state?.state === "removed" ? "was removed" : "is paused"}. Nothing was ordered.`,
          );
    await saveLast(deps.store, scheduleId, {
      occurrence,
      at: deps.now(),
      outcome: reply.summary.slice(0, 200),
    });
    return { ...reply, summary: `${title}: ${reply.summary}`, blocks: [context(title), ...reply.blocks] };
  },
};

async function decideAndOrder(ctx: ActionContext, order: StandingOrder): Promise<Reply> {
  const { deps } = ctx;
  // A run spends as the person who created it: only while they may still spend.
  if (ctx.recovered !== true && !can(roleOf(order.createdBy, deps.settings), "operator")) {
    const who = order.createdBy.displayName ?? actorKey(order.createdBy);
    return outcomeLine(
      `Skipped: ${who}, who created this standing order, is no longer an operator or admin (OPS_OPERATORS, OPS_ADMINS). Nothing was ordered; an operator can remove it and create it again.`,
    );
  }
  const cid = ctx.record.confirmationId;
  let aboveMax: string | undefined;
  const ceiling: EnergyConfirmPayload = {
    address: order.address,
    amount: order.amount,
    scheduleId: order.id,
    route: "order5m",
    quoteTrx: ceilingTrx(order),
    unitPriceSun: order.maxSun ?? 0,
    periodLabel: "",
  };
  const live = energyOrder.live(deps, ceiling);
  const requote = (list: Parameters<typeof live.requote>[0]): EnergyQuote => {
    const quote = buildEnergyQuote(list, order.address, order.amount);
    const highest = Math.max(...quote.chunks.map((c) => c.priceSun));
    if (order.maxSun !== undefined && highest > order.maxSun) {
      aboveMax = `Skipped: the unit price now is ${highest} SUN (${quote.periodLabel}), above this standing order's max of ${order.maxSun} SUN. Nothing was ordered.`;
      throw new UserError(aboveMax);
    }
    return quote;
  };
  const who: Confirmed = {
    confirmationId: cid,
    actor: order.createdBy,
    conversation: order.conversation,
    followUp: order.thread,
    requester: { kind: "schedule", id: order.id },
  };
  // The energy order's own path (src/core/spend/pipeline.ts), bounded by the order's `max`.
  return runSpend(ctx, energyOrder, ceiling, who, {
    live: { ...live, requote },
    async onRefused(decision) {
      const line = aboveMax ?? decision.line;
      await recordConfirmed(deps, {
        kind: "refusal",
        confirmationId: cid,
        chargedTrx: "0",
        result: "refused",
        audit: {
          actor: order.createdBy,
          conversation: order.conversation,
          verb: "energy",
          address: order.address,
          amount: String(order.amount),
          schedule: order.id,
          result: "failed",
          message: line,
        },
      });
      if (decision.reason === "deny-list") return pauseBlocked(ctx, order, line);
      return outcomeLine(line);
    },
    // Cannot happen below the ceiling; kept honest rather than assumed.
    onRose: async (decision) => outcomeLine(`Skipped: ${decision.why}. Nothing was ordered.`),
  });
}

const ceilingTrx = (order: StandingOrder): string =>
  order.maxSun === undefined ? NO_CEILING_TRX : costTrx(order.maxSun, order.amount);

/** The address is on the deny list: the standing order is paused, with an alert where it lives. */
async function pauseBlocked(ctx: ActionContext, order: StandingOrder, line: string): Promise<Reply> {
  await pauseBlockedOrder(ctx.deps, order, line, ctx.record.confirmationId);
  return outcomeLine(`${line} Standing order ${order.id} is paused.`);
}

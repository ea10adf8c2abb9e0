import { CANCEL_KIND, createActionGroup } from "../actions.js";
import type { CommandContext, CommandDefinition } from "../command.js";
import { formatAmount } from "../format.js";
import { formatCount } from "../parse/echo.js";
import { energyServiceFor, quoteEnergy } from "../pricing/quote.js";
import {
  bold,
  buttons,
  code,
  context,
  errorReply,
  fields,
  header,
  publicReply,
  type Reply,
  text,
} from "../reply.js";
import { can, refusalLine } from "../roles.js";
import { checkAtQuote } from "../spend/check-at-quote.js";
import { atApprovalThreshold } from "../spend/decide-at-confirm.js";
import { denyListText } from "../spend/preflight.js";
import { planNext, runJobId } from "./occurrences.js";
import { describeTiming, nextOccurrence, whenText } from "./recurrence.js";
import { parseScheduleArgs, SCHEDULE_USAGE, type ScheduleArgs } from "./schedule-args.js";
import { SCHEDULE_CONFIRM_KIND, type ScheduleConfirmPayload } from "./schedule-payload.js";
import { listReply } from "./schedule-render.js";
import {
  deleteOrder,
  idsIn,
  MAX_PER_CONVERSATION,
  orderHere,
  readState,
  setState,
  timingOf,
} from "./standing-orders.js";

/**
 * `schedule …`: standing orders of this conversation. `schedule energy …` is quoted like an order
 * (the price now, the next run, the caps and approval that will apply at each run) and created by
 * one Confirm; `list` is for everyone, `pause`, `resume`, `remove` for operators.
 */
export const scheduleCommand: CommandDefinition = {
  verb: "schedule",
  subverbs: ["energy", "list", "pause", "resume", "remove"],
  role: "viewer",
  summary: "standing orders (UTC), within every money rule",
  usage:
    "schedule energy <address> <amount> at <HH:MM> [days] [max <sun>] | list [page] | pause|resume|remove <id>",
  details: `The whole grammar: ${SCHEDULE_USAGE}. Days: daily (the default), weekdays, or a list such as mon,wed,fri; max: the highest unit price in SUN a run may pay.`,
  example: "schedule energy TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b 65k at 08:00 weekdays",
  async run(ctx) {
    const parsed = parseScheduleArgs(ctx.subverb, ctx.args);
    if (!parsed.ok) return errorReply(parsed.error);
    const args = parsed.value;
    if (args.kind !== "list" && !can(ctx.role, "operator")) {
      return errorReply(refusalLine(`schedule ${args.kind}`, "operator", ctx.role, ctx.invocation.actor));
    }
    switch (args.kind) {
      case "energy":
        return quoteSchedule(ctx, args);
      case "list":
        return listReply(ctx.deps, ctx.invocation.conversation, args.page);
      case "pause":
      case "resume":
      case "remove":
        return change(ctx, args);
    }
  },
};

async function quoteSchedule(
  ctx: CommandContext,
  args: Extract<ScheduleArgs, { kind: "energy" }>,
): Promise<Reply> {
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  if ((await idsIn(deps.store, conversation)).length >= MAX_PER_CONVERSATION) {
    return errorReply(
      `This conversation has ${MAX_PER_CONVERSATION} standing orders, the most it may have: remove one (schedule remove <id>) before adding another.`,
    );
  }
  // Quoted like an order, without the balance: each run reads it.
  const checked = await checkAtQuote(deps, {
    actor,
    preflight: args.address,
    price: (reads) => quoteEnergy(deps, args.address, args.amount, reads),
    prices: [energyServiceFor(args.amount)],
    costOf: (q) => q.costTrx,
    balance: false,
  });
  if (!checked.ok) return errorReply(checked.line);
  const { quote, verdict } = checked;
  const timing = { atMin: args.atMin, repeat: args.repeat };
  const next = nextOccurrence(timing, deps.now());
  const payload: ScheduleConfirmPayload = {
    address: args.address,
    amount: args.amount,
    atMin: args.atMin,
    repeat: args.repeat,
    ...(args.maxSun !== undefined && { maxSun: args.maxSun }),
  };
  const { tokens } = await createActionGroup(deps.store, { conversation, createdBy: actor, now: deps.now }, [
    { kind: SCHEDULE_CONFIRM_KIND, payload, role: "operator" },
    { kind: CANCEL_KIND, payload: {}, role: "operator" },
  ]);
  const above = args.maxSun !== undefined && quote.unitPriceSun > args.maxSun;
  const rules = [
    `Each run re-reads the price list${args.maxSun === undefined ? "" : ` and is skipped when the unit price is above ${args.maxSun} SUN`}, re-checks the deny list, and counts against your daily limit${deps.settings.dailyLimitTrx ? ` (${formatAmount(deps.settings.dailyLimitTrx)})` : ""}${deps.settings.maxOrderTrx ? ` and the per-order cap (${formatAmount(deps.settings.maxOrderTrx)})` : ""}.`,
    deps.settings.approvalTrx === undefined
      ? "No second person's approval is needed (OPS_APPROVAL_TRX is not set)."
      : atApprovalThreshold(deps, quote.costTrx)
        ? `At today's price a run is at or above ${formatAmount(deps.settings.approvalTrx)} (OPS_APPROVAL_TRX): each run will post an approval request here instead of ordering.`
        : `A run at or above ${formatAmount(deps.settings.approvalTrx)} (OPS_APPROVAL_TRX) posts an approval request instead of ordering.`,
  ];
  const summary = `Standing order quote: ${formatCount(args.amount)} energy ${describeTiming(timing)}`;
  return publicReply(summary, [
    header("Standing order"),
    fields(
      ["Address", code(args.address)],
      ["Energy", formatCount(args.amount)],
      ["When", describeTiming(timing)],
      ["Next run", next === undefined ? "none" : whenText(next)],
      [
        "Price now",
        `${formatAmount(quote.costTrx)} (${quote.unitPriceSun} SUN per energy, ${quote.periodLabel})`,
      ],
      [
        "Max unit price",
        args.maxSun === undefined ? "none (the live price)" : `${args.maxSun} SUN per energy`,
      ],
      ["Deny list", denyListText(verdict)],
    ),
    ...(above
      ? [
          text(
            bold("Note: "),
            `the unit price now (${quote.unitPriceSun} SUN) is above the max; a run at this price would be skipped.`,
          ),
        ]
      : []),
    context(rules.join(" ")),
    buttons(
      { label: "Confirm standing order", token: tokens[0] ?? "", style: "primary" },
      { label: "Cancel", token: tokens[1] ?? "" },
    ),
    context(
      "Buttons last 5 minutes; an operator can confirm. Each run's outcome is posted in this message's thread.",
    ),
  ]);
}

async function change(
  ctx: CommandContext,
  args: Extract<ScheduleArgs, { kind: "pause" | "resume" | "remove" }>,
): Promise<Reply> {
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  const order = await orderHere(deps.store, conversation, args.id);
  if (!order)
    return errorReply(`No standing order ${args.id} here: schedule list shows this conversation's ids.`);
  const who = actor.displayName ?? `${actor.platform}:${actor.userId}`;
  const state = await readState(deps.store, order.id);
  const done = (line: string) => publicReply(line, [text(line)]);
  switch (args.kind) {
    case "pause":
      if (state?.state === "paused") return done(`Standing order ${order.id} is already paused.`);
      await setState(deps.store, order.id, { state: "paused", by: who, at: deps.now() });
      return done(`Standing order ${order.id} paused by ${who}: no run until it is resumed.`);
    case "resume": {
      if (state?.state === "active") return done(`Standing order ${order.id} is already active.`);
      await setState(deps.store, order.id, { state: "active", by: who, at: deps.now() });
      const next = await planNext(deps, order);
      return done(
        next === undefined
          ? `Standing order ${order.id} resumed by ${who}, but it has no run left (its one run was in the past); remove it.`
          : `Standing order ${order.id} resumed by ${who}. Next run: ${whenText(next)}.`,
      );
    }
    case "remove": {
      await deleteOrder(deps.store, order, who, deps.now());
      const next = nextOccurrence(timingOf(order), deps.now());
      if (next !== undefined) await deps.jobs.cancel?.(runJobId(order.id, next)).catch(() => {});
      return done(`Standing order ${order.id} removed by ${who}.`);
    }
  }
}

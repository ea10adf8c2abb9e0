import { z } from "zod";
import { createAction } from "../actions.js";
import { hostStarters } from "../activity/facts.js";
import { raiseAlert } from "../alerts/index.js";
import type { ActionHandler } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { formatAmount } from "../format.js";
import type { ConversationRef } from "../invocation.js";
import { chargedToday } from "../ledger/day-totals.js";
import { findOrigin } from "../origins.js";
import { buttons, code, context, publicReply, type Reply, text } from "../reply.js";
import { SPEND_TTL_MS, sunToTrx, trxToSun } from "../spend/spend-guard.js";
import { stopHostMode } from "./host-stop.js";

/**
 * Host Mode past the daily cap. The service charges every cycle whatever OPS_DAILY_LIMIT_TRX says,
 * so a cycle is never refused (spend/host-cycles.ts counts it toward its starter's day); but when
 * the cycles take the starter's UTC day past the cap the team is told, once per address per day:
 * one alert (Ack / Snooze / Resolve) naming the address, the day's amount and the cap, with a
 * Stop Host Mode button (operators). The day's mark is claimed with SET NX, so two instances, or
 * a callback repeated, raise it once; the button is a one-time action, so a double click stops once.
 */
const STOP_KIND = "host.over-cap-stop";
const ALERT_KIND = "host.over-cap";
/** An alert is read later than a quote: its button lasts a day. */
const STOP_BUTTON_TTL_MS = 24 * 3_600_000;
const dayOf = (at: number): string => new Date(at).toISOString().slice(0, 10);
const markKey = (address: string, day: string): string => `host-over-cap:${address}:${day}`;

type Cycle = { address: string; charged?: string | undefined };

/** After a cycle was counted: the alert, when its starter's day is now past the cap (once a day). */
export async function alertHostOverCap(deps: CoreDeps, cycle: Cycle): Promise<void> {
  const cap = deps.settings.dailyLimitTrx;
  if (cap === undefined || !chargedSomething(cycle.charged)) return;
  const starter = (await hostStarters(deps.store, [cycle.address])).get(cycle.address);
  if (starter === undefined) return;
  // One reading of the day's ledger: the total and the cycles' part of it always agree.
  const today = await chargedToday(deps.store, starter, deps.now());
  if (trxToSun(cap).gte(today.totalSun)) return;
  const origin = await findOrigin(deps.store, "host", cycle.address);
  if (origin === null) return;
  const day = dayOf(deps.now());
  const mark = markKey(cycle.address, day);
  if (!(await deps.store.setIfNotExists(mark, "1", SPEND_TTL_MS))) return;
  try {
    const view = {
      address: cycle.address,
      starter,
      spentTrx: sunToTrx(today.totalSun),
      cyclesTrx: sunToTrx(today.hostCyclesSun),
      cap,
    };
    await raiseAlert(deps, {
      key: mark,
      kind: ALERT_KIND,
      subject: { type: "address", id: cycle.address },
      severity: "warning",
      posts: [
        { conversation: origin, reply: renderOverCap(view, await stopToken(deps, origin, cycle.address)) },
      ],
    });
    deps.logger.warn(
      { address: cycle.address, starter, day },
      "Host Mode cycles took a day past the daily cap",
    );
  } catch (error) {
    // Not raised: a repeat of the callback (or the next cycle) raises it, with the same key.
    await deps.store.del(mark).catch(() => {});
    throw error;
  }
}

const chargedSomething = (charged: string | undefined): boolean =>
  charged !== undefined && /^\d+(\.\d+)?$/.test(charged) && Number(charged) > 0;

const stopToken = (deps: CoreDeps, conversation: ConversationRef, address: string): Promise<string> =>
  createAction(deps.store, {
    kind: STOP_KIND,
    payload: { address },
    role: "operator",
    conversation,
    createdBy: "host-over-cap",
    ttlMs: STOP_BUTTON_TTL_MS,
    now: deps.now,
  });

interface OverCapView {
  address: string;
  starter: string;
  spentTrx: string;
  cyclesTrx: string;
  cap: string;
}

function renderOverCap(view: OverCapView, token: string): Reply {
  const amounts = `${formatAmount(view.spentTrx)} charged today, daily cap ${formatAmount(view.cap)} (OPS_DAILY_LIMIT_TRX)`;
  const summary = `Host Mode past the daily cap: ${view.address}: ${amounts}`;
  return {
    ...publicReply(summary, [
      text(
        "Host Mode cycles of ",
        code(view.address),
        ` took the UTC day of ${view.starter} (who started it) past the daily cap: ${amounts}.`,
      ),
      context(
        `Host Mode cycles make up ${formatAmount(view.cyclesTrx)} of it. The service charges every cycle whatever the cap says, so they go on until Host Mode is stopped; ${view.starter}'s other spends are refused until 00:00 UTC.`,
      ),
      buttons({ label: "Stop Host Mode", token, style: "danger" }),
    ]),
    alert: summary,
  };
}

const payloadSchema = z.object({ address: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/) });

/** Stop Host Mode on the alert: `host stop`'s own path; its reply takes the pressed message's place. */
export const hostOverCapStopAction: ActionHandler = {
  kind: STOP_KIND,
  role: "operator",
  async run(ctx, payload) {
    const parsed = payloadSchema.safeParse(payload);
    if (!parsed.success) throw new Error(`bad ${STOP_KIND} payload: ${parsed.error.message}`);
    const { actor, conversation, messageId } = ctx.invocation;
    return stopHostMode(ctx.deps, { actor, conversation }, parsed.data.address, messageId);
  },
};

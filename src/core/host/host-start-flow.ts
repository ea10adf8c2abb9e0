import { isServiceError } from "../../service/errors.js";
import type { HostInfinityStarted, HostReply } from "../../service/host-mode.js";
import type { CoreDeps } from "../deps.js";
import { type KnownOutcome, recordPlaced } from "../ledger/placed.js";
import { rememberOrigin } from "../origins.js";
import { buttons, type Reply, text } from "../reply.js";
import { type Confirmed, requesterField, whoName } from "../spend/confirmed.js";
import type { Placed } from "../spend/definition.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { autoWatch } from "../watch/index.js";
import { markHostActive } from "./active.js";
import { holdFirstCycle } from "./host-cycles.js";
import { recordHostEvent } from "./host-events.js";
import { noteHostRunStarted } from "./host-ledger.js";
import { type HostConfirmPayload, hostCallbackUrl } from "./host-payload.js";
import { renderHostStarted } from "./host-render.js";
import { readHostStatus, START_CHECK_TIMEOUT_MS, startCheckLine } from "./host-status.js";
import { createStatusButton } from "./host-status-action.js";

/**
 * One Host Mode start of a confirmation, shared by the Confirm, its recovery after a crash and
 * the reconciler that asks again when an answer was lost: what a lost answer is, what a repeated
 * start's answer says about the first, and what each outcome leaves behind (the spend settled or
 * released, the origin of cycle callbacks, the audit).
 */
export const hostAuditBase = (
  who: Pick<Confirmed, "actor" | "conversation" | "requester">,
  p: HostConfirmPayload,
) => ({
  actor: who.actor,
  conversation: who.conversation,
  verb: "host start",
  address: p.address,
  quoteTrx: p.firstCycleTrx,
  ...requesterField(who),
});

/** No answer, an unreadable one or a 5xx: the call may have taken effect. */
export function hostAnswerLost(error: unknown): boolean {
  if (!isServiceError(error)) return false;
  if (error.kind === "timeout" || error.kind === "network" || error.kind === "invalid_reply") return true;
  return (error.httpStatus ?? 0) >= 500;
}

/**
 * What the answer to a repeated infinitystart says about an earlier one (the spec's state
 * machine): already active (-5) or an open order (-6): it went through; insufficient balance (-2)
 * or not registered (-4): nothing started; anything else (-1, no answer, 5xx, 429, the checks
 * before the endpoint) says nothing yet.
 */
export function repeatedStartAnswer(error: unknown): "started" | "not-started" | "unknown" {
  if (!isServiceError(error) || error.kind !== "http") return "unknown";
  if (error.code === -5 || error.code === -6) return "started";
  if (error.code === -2 || error.code === -4) return "not-started";
  return "unknown";
}

/**
 * The bookkeeping of a start. Host Mode runs whatever happens here, so a failure is logged and
 * never turned into an error line that would make the user start it again.
 */
async function afterStart(deps: CoreDeps, who: Confirmed, p: HostConfirmPayload): Promise<void> {
  try {
    // Cycle callbacks for this address are posted where Host Mode was started.
    await rememberOrigin(deps.store, "host", p.address, who.followUp ?? who.conversation);
    // The App Home lists the addresses in Host Mode.
    await markHostActive(deps, p.address);
    await recordHostEvent(deps.store, p.address, {
      event: "started",
      at: deps.now(),
      confirmationId: who.confirmationId,
    });
    await autoWatch(deps, who.conversation, p.address, who.actor);
    // The first cycle is charged moments after the start: its hold stays until its callback says
    // what it cost; later cycles count toward the starter's day as they are charged.
    await holdFirstCycle(deps, p.address, who.confirmationId, who.actor);
    // What `host status` shows beside the service's reading: who started it, and since when.
    await noteHostRunStarted(deps, p.address, who);
  } catch (error) {
    deps.logger.error({ err: error, address: p.address }, "Host Mode started, but its bookkeeping failed");
  }
}

/** infinitystart answered code 0: started now. */
export async function hostStartedNow(
  deps: CoreDeps,
  who: Confirmed,
  p: HostConfirmPayload,
  started: HostReply<HostInfinityStarted>,
): Promise<Placed> {
  await afterStart(deps, who, p);
  const orderId = String(started.data.order_id);
  const reply = renderHostStarted(started.data, {
    callback: hostCallbackUrl(deps.settings) !== undefined,
    by: whoName(who.actor),
    message: started.message,
    ...(await startCheck(deps, who, p.address)),
  });
  return { ...hostStarted(who, p, `${started.message}; infinity order ${orderId}`, [orderId]), reply };
}

/**
 * Time Status read right after the start, to say on the start message that it took effect, and
 * the Status button that reads it again later. Host Mode runs whatever happens here.
 */
async function startCheck(
  deps: CoreDeps,
  who: Confirmed,
  address: string,
): Promise<{ check: string; statusToken?: string }> {
  const reading = await readHostStatus(deps, address, { timeoutMs: START_CHECK_TIMEOUT_MS, maxAttempts: 1 });
  const check = startCheckLine(reading, address);
  try {
    return { check, statusToken: await createStatusButton(deps, who.conversation, who.actor, address) };
  } catch (error) {
    deps.logger.warn({ err: error, address }, "Host Mode started, but its Status button was not made");
    return { check };
  }
}

/** A repeated start answered "already active" or "open order": an earlier send of this confirmation started it. */
export async function hostStartedBefore(
  deps: CoreDeps,
  who: Confirmed,
  p: HostConfirmPayload,
  how: string,
): Promise<Placed> {
  await afterStart(deps, who, p);
  const line = `Host Mode is active for ${p.address}: ${how} (confirmed by ${whoName(who.actor)}). Stop with: host stop ${p.address}`;
  const { check, statusToken } = await startCheck(deps, who, p.address);
  const reply = outcomeLine(line);
  reply.blocks.push(text(check));
  if (statusToken) reply.blocks.push(buttons({ label: "Status", token: statusToken }));
  return { ...hostStarted(who, p, line), reply };
}

/** Nothing was started, so nothing was charged: the hold is given back. */
export function hostNotStarted(
  deps: CoreDeps,
  who: Confirmed,
  p: HostConfirmPayload,
  line: string,
  error?: unknown,
): Placed {
  if (error !== undefined) deps.logger.warn({ err: error, address: p.address }, "host start failed");
  const failed = { chargedTrx: "0", orderIds: [], detail: line, audit: hostAuditBase(who, p) };
  return { result: "failed", ...failed, reply: outcomeLine(line) };
}

/**
 * A start that went through: its ledger entry costs 0 (the service charges cycles, each its own
 * `host_cycle` entry), and its hold stays until the first cycle's callback settles it.
 */
export const hostStarted = (
  who: Pick<Confirmed, "actor" | "conversation" | "requester">,
  p: HostConfirmPayload,
  detail: string,
  orderIds: readonly string[] = [],
): KnownOutcome => ({
  result: "ordered",
  chargedTrx: "0",
  orderIds,
  detail,
  audit: hostAuditBase(who, p),
  holds: false,
});

/** A reconciler learned the start's outcome: entered in the ledger as the Confirm would have. */
export async function entered(
  deps: CoreDeps,
  who: Confirmed,
  placed: Placed | Promise<Placed>,
): Promise<Reply> {
  const { reply, ...outcome } = await placed;
  await recordPlaced(deps, { kind: "host_start", confirmationId: who.confirmationId }, outcome);
  return reply;
}

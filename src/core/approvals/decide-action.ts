import { readAudit } from "../audit-log.js";
import type { ActionContext, ActionHandler } from "../command.js";
import { formatAmount, formatEpoch } from "../format.js";
import { actorKey } from "../invocation.js";
import type { Reply } from "../reply.js";
import { whoName } from "../spend/confirmed.js";
import type { LiveQuote } from "../spend/decide-at-confirm.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { auditSpend } from "../spend/record.js";
import {
  approvalTrail,
  describeSpend,
  expiredLine,
  nothingDone,
  renderClosed,
  renderRequest,
} from "./approval-render.js";
import {
  APPROVE_KIND,
  type ApprovalRequest,
  approvalPayloadSchema,
  createRound,
  REJECT_KIND,
  readRequest,
  saveRequest,
  ttlOf,
} from "./request.js";
import { carryOut, decideApproved, livePayloadOf } from "./spends.js";

/**
 * Approve and Reject. The core has claimed this round's button group before `run`, so one
 * decision per round whatever the clicks; the requester and viewers were refused before the claim
 * (the buttons stay usable for others).
 */
type Open = { ok: true; request: ApprovalRequest; carriedOn: boolean } | { ok: false; reply: Reply };

async function openRequestOf(ctx: ActionContext, raw: unknown, verb: string): Promise<Open> {
  const { deps } = ctx;
  const payload = approvalPayloadSchema.parse(raw);
  const request = await readRequest(deps.store, payload.requestId);
  if (!request) {
    return {
      ok: false,
      reply: outcomeLine("This approval request is unknown or too old; nothing was done."),
    };
  }
  // Approved in this very round: only a re-run of this click gets here (the core claims a round's
  // buttons once), so the approved spend is carried on, never answered "nothing was done".
  if (request.state === "approved" && request.round === payload.round && verb === "approve") {
    return { ok: true, request, carriedOn: true };
  }
  if (request.state !== "pending" || request.round !== payload.round) {
    return {
      ok: false,
      reply: renderClosed(`This approval request is already ${request.state}; nothing was done.`, request),
    };
  }
  if (deps.now() >= request.expiresAt) {
    await saveRequest(deps, { ...request, state: "expired" });
    await audit(ctx, request, `approval ${verb}`, "failed", `expired at ${formatEpoch(request.expiresAt)}`);
    return { ok: false, reply: renderClosed(expiredLine(request), request) };
  }
  return { ok: true, request, carriedOn: false };
}

function audit(
  ctx: ActionContext,
  request: ApprovalRequest,
  verb: string,
  result: "ok" | "failed",
  message: string,
  orderIds?: string[],
) {
  return auditSpend(ctx.deps, {
    actor: ctx.invocation.actor,
    conversation: request.conversation,
    verb,
    quoteTrx: request.quoteTrx,
    result,
    message: `request ${request.id} of ${actorKey(request.requester)} (asked ${formatEpoch(request.requestedAt)}) for ${describeSpend(request)}: ${message}`,
    ...(orderIds && orderIds.length > 0 && { orderIds }),
  });
}

/**
 * A new round of buttons: the price rose (new quote, fresh expiry), or the re-check could not be
 * made (same quote and expiry, say why). Nothing was ordered either way.
 */
async function newRound(
  ctx: ActionContext,
  request: ApprovalRequest,
  next: { costTrx: string; payload: unknown } | { failure: string },
): Promise<Reply> {
  const { deps } = ctx;
  const ttlMs = ttlOf(deps);
  const round = request.round + 1;
  const tokens = await createRound(deps, { ...request, round, ttlMs });
  const moved = "costTrx" in next;
  const updated: ApprovalRequest = moved
    ? {
        ...request,
        round,
        tokens,
        payload: next.payload,
        previousQuoteTrx: request.quoteTrx,
        quoteTrx: next.costTrx,
        expiresAt: deps.now() + ttlMs,
      }
    : { ...request, round, tokens };
  await saveRequest(deps, updated);
  const why = moved
    ? `price moved from ${request.quoteTrx} to ${next.costTrx} TRX; approval asked again`
    : `the price and deny list could not be checked again (${next.failure}); approval asked again`;
  await audit(ctx, request, "approval approve", "failed", why);
  const note = moved
    ? undefined
    : `Not ordered: the price and the deny list could not be checked again just now (${next.failure.replace(/\.$/, "")}). Approve again in a moment.`;
  return renderRequest(updated, deps.now(), note);
}

/** The order the spend's Confirm just placed, from its audit entry (the handler returns only a reply). */
async function orderIdsOf(ctx: ActionContext, request: ApprovalRequest, since: string): Promise<string[]> {
  const requester = actorKey(request.requester);
  const address = (request.payload as { address?: string }).address;
  const entries = await readAudit(ctx.deps.store, 50);
  const found = entries.find(
    (e) => e.actor === requester && e.address === address && e.at >= since && !e.verb.startsWith("approval"),
  );
  return found?.orderIds ?? [];
}

export const approveAction: ActionHandler = {
  kind: APPROVE_KIND,
  role: "operator",
  // The click that places the order: carried out even when this instance dies after the ack.
  durable: true,
  async run(ctx, raw) {
    const open = await openRequestOf(ctx, raw, "approve");
    if (!open.ok) return open.reply;
    const { request } = open;
    const { deps } = ctx;
    // The decision at this click, as the requester, the approval given (a re-run gets the stored one).
    const decision = await decideApproved(deps, request);
    switch (decision.kind) {
      case "refused":
        if (decision.reason === "prices")
          return newRound(ctx, request, { failure: "the price list could not be read in time" });
        if (decision.reason === "deny-list-unchecked")
          return newRound(ctx, request, { failure: "the deny list could not be checked in time" });
        return refuse(ctx, request, decision.line);
      case "rose":
        return newRound(ctx, request, {
          costTrx: decision.quote.costTrx,
          payload: livePayloadOf(request, decision.quote),
        });
      case "approval":
        throw new Error(`approval request ${request.id}: an approved spend was sent for approval again`);
      case "go":
        return approveAndPlace(ctx, request, decision.quote, open.carriedOn);
    }
  },
};

/** The spend cannot go (blocked address, balance, caps): the request is closed with the line. */
async function refuse(ctx: ActionContext, request: ApprovalRequest, line: string): Promise<Reply> {
  const { deps } = ctx;
  await saveRequest(deps, {
    ...request,
    state: "refused",
    decidedBy: ctx.invocation.actor,
    decidedAt: deps.now(),
  });
  await audit(ctx, request, "approval approve", "failed", line);
  return renderClosed(line, request);
}

/**
 * The decision said go (the live amount reserved): the request is saved approved with what is
 * ordered, then the order is placed. A re-run after a crash (`carriedOn`) places it again with
 * the same idempotency key (the service answers with the first order) or reconciles it.
 */
async function approveAndPlace(
  ctx: ActionContext,
  request: ApprovalRequest,
  quote: LiveQuote,
  carriedOn: boolean,
): Promise<Reply> {
  const { deps } = ctx;
  const at = carriedOn ? (request.decidedAt ?? deps.now()) : deps.now();
  const payload = carriedOn ? request.payload : livePayloadOf(request, quote);
  const approved: ApprovalRequest = carriedOn
    ? request
    : {
        ...request,
        payload,
        quoteTrx: quote.costTrx,
        state: "approved",
        decidedBy: ctx.invocation.actor,
        decidedAt: at,
      };
  if (!carriedOn) await saveRequest(deps, approved);
  const since = new Date(at).toISOString();
  const reply = await carryOut(ctx, approved, payload);
  const orderIds = await orderIdsOf(ctx, request, since);
  const again = carriedOn ? " (carried on after a restart)" : "";
  await audit(
    ctx,
    approved,
    "approval approve",
    "ok",
    `approved at ${formatEpoch(at)}${again}, ${formatAmount(quote.costTrx)}: ${reply.summary}`,
    orderIds,
  );
  const approverName = whoName(approved.decidedBy ?? ctx.invocation.actor);
  return { ...reply, blocks: [...reply.blocks, approvalTrail(request, approverName, at)] };
}

export const rejectAction: ActionHandler = {
  kind: REJECT_KIND,
  role: "operator",
  async run(ctx, raw) {
    const open = await openRequestOf(ctx, raw, "reject");
    if (!open.ok) return open.reply;
    const { request } = open;
    const { deps } = ctx;
    const at = deps.now();
    const own = actorKey(ctx.invocation.actor) === actorKey(request.requester);
    await saveRequest(deps, {
      ...request,
      state: "rejected",
      decidedBy: ctx.invocation.actor,
      decidedAt: at,
    });
    await audit(
      ctx,
      request,
      "approval reject",
      "ok",
      own ? "withdrawn by the requester" : `rejected at ${formatEpoch(at)}`,
    );
    const who = whoName(ctx.invocation.actor);
    const line = own
      ? `Withdrawn by ${who} at ${formatEpoch(at)}. ${nothingDone(request)}`
      : `Rejected by ${who} at ${formatEpoch(at)}. ${nothingDone(request)}`;
    return renderClosed(line, request);
  },
};

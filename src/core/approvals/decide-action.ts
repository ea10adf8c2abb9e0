import type { ActionContext, ActionHandler } from "../command.js";
import { formatAmount, formatEpoch } from "../format.js";
import { actorKey } from "../invocation.js";
import { placedOutcome } from "../ledger/placed.js";
import type { Reply } from "../reply.js";
import {
  approvalTrail,
  approversOf,
  describeRequest,
  expiredLine,
  nothingDone,
  renderClosed,
  renderRequest,
} from "../spend/approval-render.js";
import {
  APPROVE_KIND,
  type ApprovalRequest,
  approvalPayloadSchema,
  createRound,
  REJECT_KIND,
  readRequest,
  saveRequest,
} from "../spend/approval-request.js";
import { capRefusal } from "../spend/check-at-quote.js";
import { whoName } from "../spend/confirmed.js";
import type { LiveQuote } from "../spend/decide-at-confirm.js";
import type { AnyDefinition, DefinitionRegistry } from "../spend/definition.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { auditSpend } from "../spend/spend-audit.js";
import { tell } from "../spend-lifecycle.js";
import { carryOut, decideApproved } from "./carry-out.js";

/**
 * Approve and Reject, for every definition (src/core/spend/definition.ts): a request names its
 * definition, found in the registry the feature list builds (src/core/features.ts), so nothing
 * here knows a feature. The core has claimed this round's button group before `run`, so one
 * decision per round whatever the clicks; the requester and viewers were refused before the claim
 * (the buttons stay usable for others).
 */
type Opened = { request: ApprovalRequest; def: AnyDefinition; carriedOn: boolean };
type Open = ({ ok: true } & Opened) | { ok: false; reply: Reply };

async function openRequestOf(
  ctx: ActionContext,
  registry: DefinitionRegistry,
  raw: unknown,
  verb: string,
): Promise<Open> {
  const { deps } = ctx;
  const payload = approvalPayloadSchema.parse(raw);
  const request = await readRequest(deps.store, payload.requestId);
  const def = request ? registry.get(request.spend) : undefined;
  if (!request || !def) {
    return {
      ok: false,
      reply: outcomeLine("This approval request is unknown or too old; nothing was done."),
    };
  }
  // Approved in this very round: only a re-run of this click gets here (the core claims a round's
  // buttons once), so the approved spend is carried on, never answered "nothing was done".
  if (request.state === "approved" && request.round === payload.round && verb === "approve") {
    return { ok: true, request, def, carriedOn: true };
  }
  if (request.state !== "pending" || request.round !== payload.round) {
    const line = `This approval request is already ${request.state}; nothing was done.`;
    return { ok: false, reply: renderClosed(def, line, request) };
  }
  if (deps.now() >= request.expiresAt) {
    await saveRequest(deps, { ...request, state: "expired" });
    await audit(
      ctx,
      def,
      request,
      `approval ${verb}`,
      "failed",
      `expired at ${formatEpoch(request.expiresAt)}`,
    );
    await tell(deps, { ...refOf(def, request), status: "expired" });
    return { ok: false, reply: renderClosed(def, expiredLine(def, request), request) };
  }
  return { ok: true, request, def, carriedOn: false };
}

const refOf = (def: AnyDefinition, request: ApprovalRequest) => ({
  spend: def.name,
  confirmationId: request.id,
  ...(request.origin !== undefined && { requester: request.origin }),
});

function audit(
  ctx: ActionContext,
  def: AnyDefinition,
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
    ...(request.quoteTrx !== undefined && { quoteTrx: request.quoteTrx }),
    result,
    message: `request ${request.id} of ${actorKey(request.requester)} (asked ${formatEpoch(request.requestedAt)}) for ${describeRequest(def, request)}: ${message}`,
    ...(orderIds && orderIds.length > 0 && { orderIds }),
  });
}

/**
 * A new round of buttons: the price rose (new quote, fresh expiry), or the re-check could not be
 * made (same quote and expiry, say why). Nothing was ordered either way.
 */
async function newRound(
  ctx: ActionContext,
  { request, def }: Opened,
  next: { costTrx: string; payload: unknown } | { failure: string },
): Promise<Reply> {
  const { deps } = ctx;
  const ttlMs = deps.settings.approvalTtlMs;
  const round = request.round + 1;
  const tokens = await createRound(deps, { ...request, round, ttlMs }, approversOf(def));
  const moved = "costTrx" in next;
  const updated: ApprovalRequest = moved
    ? {
        ...request,
        round,
        tokens,
        payload: next.payload,
        ...(request.quoteTrx !== undefined && { previousQuoteTrx: request.quoteTrx }),
        quoteTrx: next.costTrx,
        expiresAt: deps.now() + ttlMs,
      }
    : { ...request, round, tokens };
  await saveRequest(deps, updated);
  const why = moved
    ? `price moved from ${request.quoteTrx} to ${next.costTrx} TRX; approval asked again`
    : `the price and deny list could not be checked again (${next.failure}); approval asked again`;
  await audit(ctx, def, request, "approval approve", "failed", why);
  const note = moved
    ? undefined
    : `Not ordered: the price and the deny list could not be checked again just now (${next.failure.replace(/\.$/, "")}). Approve again in a moment.`;
  return renderRequest(def, updated, deps.now(), note);
}

/** Decides an approved spend again at this click; a guarded action goes on (nothing to price). */
async function approve(ctx: ActionContext, opened: Opened): Promise<Reply> {
  const { request, def } = opened;
  if (def.kind === "guarded") return approveAndPlace(ctx, opened);
  const decision = await decideApproved(ctx, def, request);
  switch (decision.kind) {
    case "refused":
      if (decision.reason === "prices")
        return newRound(ctx, opened, { failure: "the price list could not be read in time" });
      if (decision.reason === "deny-list-unchecked")
        return newRound(ctx, opened, { failure: "the deny list could not be checked in time" });
      return refuse(ctx, opened, decision.line);
    case "rose": {
      // A new round obeys the rules of a first quote: above a cap, refused, nobody asked again.
      const cap = await capRefusal(ctx.deps, request.requester, decision.quote.costTrx);
      if (cap !== undefined) return refuse(ctx, opened, `Not ordered: ${cap}`);
      const payload = def.atQuote(def.schema.parse(request.payload), decision.quote);
      return newRound(ctx, opened, { costTrx: decision.quote.costTrx, payload });
    }
    case "approval":
      throw new Error(`approval request ${request.id}: an approved spend was sent for approval again`);
    case "go":
      return approveAndPlace(ctx, opened, decision.quote);
  }
}

/** The spend cannot go (blocked address, balance, caps): the request is closed with the line. */
async function refuse(ctx: ActionContext, { request, def }: Opened, line: string): Promise<Reply> {
  const { deps } = ctx;
  await saveRequest(deps, {
    ...request,
    state: "refused",
    decidedBy: ctx.invocation.actor,
    decidedAt: deps.now(),
  });
  await audit(ctx, def, request, "approval approve", "failed", line);
  await tell(deps, { ...refOf(def, request), status: "refused", line });
  return renderClosed(def, line, request);
}

/**
 * The decision said go (a spend's live amount reserved; a guarded action: approved): the request
 * is saved approved with what is carried out, then it is carried out. A re-run after a crash
 * (`carriedOn`) places it again with the same idempotency key or reconciles it.
 */
async function approveAndPlace(ctx: ActionContext, opened: Opened, quote?: LiveQuote): Promise<Reply> {
  const { request, def, carriedOn } = opened;
  const { deps } = ctx;
  const at = carriedOn ? (request.decidedAt ?? deps.now()) : deps.now();
  const payload =
    carriedOn || quote === undefined || def.kind !== "spend"
      ? request.payload
      : def.atQuote(def.schema.parse(request.payload), quote);
  const approved: ApprovalRequest = carriedOn
    ? request
    : {
        ...request,
        payload,
        ...(quote !== undefined && { quoteTrx: quote.costTrx }),
        state: "approved",
        decidedBy: ctx.invocation.actor,
        decidedAt: at,
      };
  if (!carriedOn) await saveRequest(deps, approved);
  const reply = await carryOut(ctx, def, approved, payload);
  const placed = await placedOutcome(deps.store, request.id);
  const orderIds = placed?.status === "ordered" ? placed.orderIds : [];
  const again = carriedOn ? " (carried on after a restart)" : "";
  const amount = quote === undefined ? "" : `, ${formatAmount(quote.costTrx)}`;
  const message = `approved at ${formatEpoch(at)}${again}${amount}: ${reply.summary}`;
  await audit(ctx, def, approved, "approval approve", "ok", message, orderIds);
  if (placed !== undefined && placed.status !== "ordered") {
    await tell(deps, { ...refOf(def, request), status: placed.status, line: placed.line });
  } else if (placed !== undefined) {
    const confirmedBy = actorKey(approved.decidedBy ?? ctx.invocation.actor);
    const paid = placed.paidTrx === undefined ? {} : { paidTrx: placed.paidTrx };
    await tell(deps, { ...refOf(def, request), status: "ordered", ...paid, confirmedBy, orderIds });
  }
  const approverName = whoName(approved.decidedBy ?? ctx.invocation.actor);
  return { ...reply, blocks: [...reply.blocks, approvalTrail(request, approverName, at)] };
}

/** The Approve and Reject buttons over the definitions of every feature. */
export function approvalActions(registry: DefinitionRegistry): ActionHandler[] {
  const approveAction: ActionHandler = {
    kind: APPROVE_KIND,
    role: "operator",
    // The click that places the order: carried out even when this instance dies after the ack.
    durable: true,
    async run(ctx, raw) {
      const open = await openRequestOf(ctx, registry, raw, "approve");
      return open.ok ? approve(ctx, open) : open.reply;
    },
  };
  const rejectAction: ActionHandler = {
    kind: REJECT_KIND,
    role: "operator",
    async run(ctx, raw) {
      const open = await openRequestOf(ctx, registry, raw, "reject");
      if (!open.ok) return open.reply;
      return reject(ctx, open);
    },
  };
  return [approveAction, rejectAction];
}

async function reject(ctx: ActionContext, { request, def }: Opened): Promise<Reply> {
  const { deps } = ctx;
  const at = deps.now();
  const own = actorKey(ctx.invocation.actor) === actorKey(request.requester);
  await saveRequest(deps, { ...request, state: "rejected", decidedBy: ctx.invocation.actor, decidedAt: at });
  const how = own ? "withdrawn by the requester" : `rejected at ${formatEpoch(at)}`;
  await audit(ctx, def, request, "approval reject", "ok", how);
  await tell(deps, { ...refOf(def, request), status: "cancelled" });
  const who = whoName(ctx.invocation.actor);
  const line = own
    ? `Withdrawn by ${who} at ${formatEpoch(at)}. ${nothingDone(def)}`
    : `Rejected by ${who} at ${formatEpoch(at)}. ${nothingDone(def)}`;
  return renderClosed(def, line, request);
}

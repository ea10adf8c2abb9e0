import type { ActionContext } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { energySpend, livePayload, placeEnergy } from "../energy/index.js";
import { hostConfirmPayloadSchema, hostSpend, placeHostStart } from "../host/index.js";
import { actorKey } from "../invocation.js";
import { livePayout, payoutConfirmPayloadSchema, payoutSpend, placePayout } from "../payout/index.js";
import type { Reply } from "../reply.js";
import type { Confirmed } from "../spend/confirmed.js";
import { type ConfirmDecision, decideAtConfirm, type LiveQuote } from "../spend/decide-at-confirm.js";
import { energyConfirmPayloadSchema } from "../spend/energy-payload.js";
import { subuserDeleteAction, subuserDeletePayloadSchema } from "../subuser/index.js";
import { followUpConversation } from "../threads/follow-ups.js";
import type { ApprovalRequest, SpendKind } from "./request.js";

/**
 * How an approved spend is decided again and carried out. The decision is the Confirm's own
 * (src/core/spend/decide-at-confirm.ts), made at the Approve click as the requester with the
 * approval given: the live price (a rise asks again), the deny list, the balance and the
 * requester's caps, reserved under the request id. The order is placed by the spend's own
 * placement step, keyed by the request id: a re-run (a crash during the Approve) places it again
 * with the same idempotency key, or finds it placed.
 */
type Deps = Pick<CoreDeps, "service" | "store" | "logger" | "now" | "settings" | "observer">;

interface SpendRunner {
  decide(deps: Deps, request: ApprovalRequest): Promise<ConfirmDecision<LiveQuote>>;
  /** The request's payload at the live quote. */
  live(payload: unknown, quote: LiveQuote): unknown;
  place(ctx: ActionContext, who: Confirmed, payload: unknown): Promise<Reply>;
}

const RUNNERS: Record<SpendKind, SpendRunner> = {
  energy: {
    decide: (deps, request) =>
      decideAtConfirm(
        deps,
        energySpend(
          request.id,
          request.requester,
          energyConfirmPayloadSchema.parse(request.payload),
          "approved",
        ),
      ),
    live: (payload, quote) =>
      livePayload(energyConfirmPayloadSchema.parse(payload), quote as Parameters<typeof livePayload>[1]),
    place: (ctx, who, payload) => placeEnergy(ctx, who, energyConfirmPayloadSchema.parse(payload)),
  },
  host: {
    decide: (deps, request) =>
      decideAtConfirm(
        deps,
        hostSpend(
          deps,
          request.id,
          request.requester,
          hostConfirmPayloadSchema.parse(request.payload),
          "approved",
        ),
      ),
    live: (payload, quote) => ({ ...hostConfirmPayloadSchema.parse(payload), firstCycleTrx: quote.costTrx }),
    place: (ctx, who, payload) => placeHostStart(ctx, who, hostConfirmPayloadSchema.parse(payload)),
  },
  payout: {
    decide: (deps, request) =>
      decideAtConfirm(
        deps,
        payoutSpend(
          request.id,
          request.requester,
          payoutConfirmPayloadSchema.parse(request.payload),
          "approved",
        ),
      ),
    live: (payload, quote) =>
      livePayout(payoutConfirmPayloadSchema.parse(payload), quote as Parameters<typeof livePayout>[1]),
    place: (ctx, who, payload) => placePayout(ctx, who, payoutConfirmPayloadSchema.parse(payload)),
  },
  // A deletion has no price, address or cap: nothing to decide again but the approval itself.
  subuser: {
    decide: async () => ({
      kind: "go",
      quote: { costTrx: "0" },
      verdicts: [],
      warnings: [],
      repeated: false,
    }),
    live: (payload) => subuserDeletePayloadSchema.parse(payload),
    // The Delete sub-user handler itself, as the requester; an approval's click passes its gate.
    place: (ctx, _who, payload) => subuserDeleteAction.run(ctx, subuserDeletePayloadSchema.parse(payload)),
  },
};

export const decideApproved = (deps: Deps, request: ApprovalRequest): Promise<ConfirmDecision<LiveQuote>> =>
  RUNNERS[request.spend].decide(deps, request);

export const livePayloadOf = (request: ApprovalRequest, quote: LiveQuote): unknown =>
  RUNNERS[request.spend].live(request.payload, quote);

/**
 * Places the approved spend as its requester (their daily limit, audit and notifications), seeded
 * with the request id.
 */
export function carryOut(ctx: ActionContext, request: ApprovalRequest, payload: unknown): Promise<Reply> {
  const asRequester: ActionContext = {
    ...ctx,
    invocation: { ...ctx.invocation, actor: request.requester, conversation: request.conversation },
    record: { ...ctx.record, confirmationId: request.id, createdBy: actorKey(request.requester) },
  };
  const who: Confirmed = {
    confirmationId: request.id,
    actor: request.requester,
    conversation: request.conversation,
    followUp: followUpConversation(asRequester.invocation),
  };
  return RUNNERS[request.spend].place(asRequester, who, payload);
}

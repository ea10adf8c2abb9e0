import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson, setJsonIfNotExists } from "../../store/store-json.js";
import { createAction, newActionGroup } from "../actions.js";
import type { CoreDeps } from "../deps.js";
import {
  type Actor,
  actorKey,
  actorSchema,
  type ConversationRef,
  conversationRefSchema,
} from "../invocation.js";
import type { Role } from "../roles.js";
import { requesterSchema } from "../spend-lifecycle.js";

/**
 * An approval request: a spend at or above OPS_APPROVAL_TRX (or a guarded action, e.g. a
 * sub-user's deletion) that its requester confirmed and another person of the required role must
 * approve. It stores the definition's name and its payload (src/core/spend/definition.ts), never
 * a feature's type: rendering and running go through the definition. Its id is the requester's confirmation id, so a Confirm
 * run twice (a retry, a durable re-run) opens one request, and the order placed on approval
 * derives its idempotency key from it: one order per request, whoever approves, however often.
 *
 * Each round of Approve / Reject buttons is one button group, claimed atomically by the core, so
 * a double click, two approvers at once or two instances decide a round once. A round whose
 * re-quote costs more than what was approved ends in a new round (new buttons, new quote).
 */
export const APPROVE_KIND = "approval.approve";
export const REJECT_KIND = "approval.reject";
/** The buttons outlive the request, so a late click is answered with "expired" in the message itself. */
const LATE_CLICK_MS = 24 * 60 * 60_000;
/** The record stays readable a while after it is decided (late clicks, the digest, support). */
const KEEP_MS = 7 * 24 * 60 * 60_000;

const approvalRequestSchema = z.object({
  id: z.string(),
  /** The definition's name (`energy`, `payout`, `host`, `subuser`). */
  spend: z.string(),
  /** The confirm payload of the spend, as quoted for this round. */
  payload: z.unknown(),
  /** The amount of a spend; absent for a guarded action (no price). */
  quoteTrx: z.string().optional(),
  /** Who asked beside the confirming person (a standing order, an agent). */
  origin: requesterSchema.optional(),
  /** The quote of the round before, when the price moved. */
  previousQuoteTrx: z.string().optional(),
  requester: actorSchema,
  conversation: conversationRefSchema,
  requestedAt: z.number(),
  expiresAt: z.number(),
  round: z.number().int(),
  tokens: z.object({ approve: z.string(), reject: z.string() }),
  state: z.enum(["pending", "approved", "rejected", "expired", "refused"]),
  decidedBy: actorSchema.optional(),
  decidedAt: z.number().optional(),
});
export type ApprovalRequest = z.infer<typeof approvalRequestSchema>;

export const approvalPayloadSchema = z.object({ requestId: z.string(), round: z.number().int() });

const requestKey = (id: string): string => `approval:${id}`;

export const SELF_APPROVAL_LINE =
  "You asked for this spend, so another operator or admin must approve it. Nothing was done; the buttons stay for them.";

/** Who may approve a round, and what the requester is told when they press Approve. */
export interface Approvers {
  role: Role;
  selfLine: string;
}

/** One round of Approve / Reject buttons, in a group of their own. */
export async function createRound(
  deps: Pick<CoreDeps, "store" | "now">,
  input: {
    id: string;
    round: number;
    requester: Actor;
    conversation: ConversationRef;
    ttlMs: number;
  },
  approvers: Approvers,
): Promise<ApprovalRequest["tokens"]> {
  const group = newActionGroup();
  const common = {
    payload: { requestId: input.id, round: input.round },
    role: approvers.role,
    conversation: input.conversation,
    createdBy: input.requester,
    ttlMs: input.ttlMs + LATE_CLICK_MS,
    now: deps.now,
    group,
  };
  const [approve, reject] = await Promise.all([
    createAction(deps.store, {
      ...common,
      kind: APPROVE_KIND,
      notBy: {
        actor: actorKey(input.requester),
        line: approvers.selfLine,
      },
    }),
    createAction(deps.store, { ...common, kind: REJECT_KIND }),
  ]);
  return { approve, reject };
}

export interface OpenInput {
  id: string;
  spend: string;
  payload: unknown;
  quoteTrx?: string;
  origin?: ApprovalRequest["origin"];
  requester: Actor;
  conversation: ConversationRef;
}

/** Opens the request once; a second call with the same id answers the first request. */
export async function openRequest(
  deps: Pick<CoreDeps, "store" | "now" | "settings">,
  input: OpenInput,
  approvers: Approvers,
): Promise<{ request: ApprovalRequest; created: boolean }> {
  const ttlMs = deps.settings.approvalTtlMs;
  const now = deps.now();
  const tokens = await createRound(deps, { ...input, round: 1, ttlMs }, approvers);
  const request: ApprovalRequest = {
    ...input,
    requestedAt: now,
    expiresAt: now + ttlMs,
    round: 1,
    tokens,
    state: "pending",
  };
  const created = await setJsonIfNotExists(deps.store, requestKey(input.id), request, ttlMs + KEEP_MS);
  if (created) return { request, created };
  const existing = await readRequest(deps.store, input.id);
  if (!existing) throw new Error(`approval request ${input.id} vanished while it was being opened`);
  return { request: existing, created: false };
}

export function readRequest(store: Store, id: string): Promise<ApprovalRequest | null> {
  return getJson(store, requestKey(id), approvalRequestSchema);
}

/** Written only by the handler that claimed the current round, so a plain write cannot race. */
export async function saveRequest(
  deps: Pick<CoreDeps, "store" | "now">,
  request: ApprovalRequest,
): Promise<void> {
  const keepMs = Math.max(request.expiresAt - deps.now(), 0) + KEEP_MS;
  await setJson(deps.store, requestKey(request.id), request, keepMs);
}

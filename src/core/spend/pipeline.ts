import { CANCEL_KIND, createActionGroup } from "../actions.js";
import type { ActionContext, ActionHandler } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { UserError } from "../errors.js";
import { type Actor, actorKey, type ConversationRef } from "../invocation.js";
import { context, type Reply } from "../reply.js";
import { askApproval } from "./approval-gate.js";
import { APPROVE_KIND } from "./approval-request.js";
import { type Confirmed, confirmedBy } from "./confirmed.js";
import {
  type ConfirmDecision,
  decideAtConfirm,
  type LiveQuote,
  priceFellLine,
  priceRoseLine,
} from "./decide-at-confirm.js";
import type { AnyDefinition, GuardedDefinition, LiveSpend, SpendDefinition } from "./definition.js";
import { type Requester, requesterOf, tell } from "./lifecycle.js";
import { outcomeLine } from "./outcome-render.js";
import { getPriceList } from "./price-list.js";
import { auditSpend } from "./record.js";
import { checkSpend } from "./spend-guard.js";

/**
 * The one money path. Every spend is a definition (src/core/spend/definition.ts) and this module
 * does the rest, the same way for each:
 *
 *   offerQuote → [Confirm] → confirmActionOf(def).run → runSpend → decide (decideAtConfirm, only here)
 *     refused  → one line (a payout run drops a newly blocked address and is quoted again: `without`)
 *     rose     → the new quote with fresh buttons in place (none above a cap: the refusal line)
 *     approval → an approval request (approval-gate.ts); Approve decides again (approvals/)
 *     go       → def.place (durable intent: the core claimed the buttons; keys from the confirmation)
 *
 * A guarded action (no price) has the same buttons, claim, intent and approval, and runs itself.
 * Each step is told to `deps.spendLifecycle` (lifecycle.ts), with who asked (`Requester`).
 */
type Deps = CoreDeps;

/** The decision at Confirm for one payload of a definition: the only call of `decideAtConfirm`. */
export function decide<P, Q extends LiveQuote>(
  deps: Deps,
  def: SpendDefinition<P, Q>,
  payload: P,
  seed: { confirmationId: string; actor: Actor },
  options: { approval?: "ask" | "approved"; live?: LiveSpend<Q> } = {},
): Promise<ConfirmDecision<Q>> {
  const live = options.live ?? def.live(deps, payload);
  return decideAtConfirm(deps, {
    ...live,
    confirmationId: seed.confirmationId,
    actor: seed.actor,
    word: def.word,
    approval: options.approval ?? "ask",
  });
}

/**
 * The quote's Confirm and Cancel buttons (one group, once, in this conversation): the Confirm
 * carries the payload and, when someone other than the confirming person asked, the requester.
 */
export async function offerQuote(
  deps: Pick<Deps, "store" | "now" | "logger" | "spendLifecycle">,
  at: { conversation: ConversationRef; actor: Actor },
  def: AnyDefinition,
  payload: unknown,
  requester?: Requester,
): Promise<{ confirmationId: string; tokens: { confirm: string; cancel: string } }> {
  const role = def.kind === "spend" ? "operator" : def.role;
  const confirm = requester === undefined ? payload : { ...(payload as object), requester };
  const { confirmationId, tokens } = await createActionGroup(
    deps.store,
    { conversation: at.conversation, createdBy: at.actor, now: deps.now },
    [
      { kind: def.confirmKind, payload: confirm, role },
      { kind: CANCEL_KIND, payload: {}, role },
    ],
  );
  const quoteTrx = def.kind === "spend" ? { quoteTrx: def.quoteTrx(payload) } : {};
  await tell(deps, {
    spend: def.name,
    confirmationId,
    ...(requester && { requester }),
    status: "quoted",
    ...quoteTrx,
  });
  return { confirmationId, tokens: { confirm: tokens[0] ?? "", cancel: tokens[1] ?? "" } };
}

const handlers = new WeakMap<AnyDefinition, ActionHandler>();

/** The Confirm button of a definition (durable: the core stores the click as an intent first). */
export function confirmActionOf(def: AnyDefinition): ActionHandler {
  const known = handlers.get(def);
  if (known) return known;
  const handler: ActionHandler = {
    kind: def.confirmKind,
    role: def.kind === "spend" ? "operator" : def.role,
    durable: true,
    run: (ctx, raw) => (def.kind === "spend" ? confirmSpend(ctx, def, raw) : confirmGuarded(ctx, def, raw)),
  };
  handlers.set(def, handler);
  return handler;
}

function parsePayload<P>(def: AnyDefinition, raw: unknown): P {
  const parsed = def.schema.safeParse(raw);
  if (!parsed.success) throw new Error(`bad ${def.confirmKind} payload: ${parsed.error.message}`);
  return parsed.data as P;
}

function confirmSpend<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  raw: unknown,
): Promise<Reply> {
  const payload = parsePayload<P>(def, raw);
  const requester = requesterOf(raw);
  return runSpend(ctx, def, payload, confirmedBy(ctx), { ...(requester && { requester }) });
}

async function confirmGuarded<P>(
  ctx: ActionContext,
  def: GuardedDefinition<P>,
  raw: unknown,
): Promise<Reply> {
  const payload = parsePayload<P>(def, raw);
  const requester = requesterOf(raw);
  // An approval's click runs it as the requester: the second person has already approved.
  if (def.needsApproval(ctx.deps) && ctx.record.kind !== APPROVE_KIND) {
    return askApproval(ctx, def, { payload, ...(requester && { requester }) });
  }
  return def.run(ctx, confirmedBy(ctx), payload);
}

export interface RunOptions<Q extends LiveQuote> {
  requester?: Requester;
  /** The live pricing, when the caller bounds it (a standing order's `max`). */
  live?: LiveSpend<Q>;
  /** A refusal the caller answers itself (a standing order pauses on a blocked address). */
  onRefused?(decision: Extract<ConfirmDecision<Q>, { kind: "refused" }>): Promise<Reply>;
  /** A rise the caller answers itself (a standing order has nobody to confirm again). */
  onRose?(decision: Extract<ConfirmDecision<Q>, { kind: "rose" }>): Promise<Reply>;
}

/** Decides a spend now and acts on the decision: a Confirm, or a standing order's run. */
export async function runSpend<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  who: Confirmed,
  options: RunOptions<Q> = {},
): Promise<Reply> {
  const { deps } = ctx;
  const decision = await decide(deps, def, payload, who, { ...(options.live && { live: options.live }) });
  const ref = {
    spend: def.name,
    confirmationId: who.confirmationId,
    ...(options.requester && { requester: options.requester }),
  };
  switch (decision.kind) {
    case "refused": {
      await tell(deps, { ...ref, status: "refused", line: decision.line });
      if (options.onRefused) return options.onRefused(decision);
      return refused(ctx, def, payload, who, decision, options.requester);
    }
    case "rose":
      if (options.onRose) return options.onRose(decision);
      return rose(ctx, def, payload, who, decision, options.requester);
    case "approval": {
      const live = def.atQuote(payload, decision.quote);
      const requester = options.requester;
      return askApproval(ctx, def, {
        payload: live,
        quoteTrx: def.quoteTrx(live),
        ...(requester && { requester }),
      });
    }
    case "go": {
      const live = def.atQuote(payload, decision.quote);
      const reply = await def.place(ctx, who, live, decision.fellByTrx);
      const by = actorKey(who.actor);
      await tell(deps, { ...ref, status: "ordered", paidTrx: def.quoteTrx(live), confirmedBy: by });
      return reply;
    }
  }
}

/** A refusal: one line, audited; a run on many addresses drops the newly blocked ones and is quoted again. */
async function refused<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  who: Confirmed,
  decision: Extract<ConfirmDecision<Q>, { kind: "refused" }>,
  requester: Requester | undefined,
): Promise<Reply> {
  const smaller =
    decision.reason === "deny-list" && decision.blocked && def.without
      ? def.without(payload, decision.blocked)
      : undefined;
  if (smaller !== undefined) return quoteWithout(ctx, def, payload, smaller, who, decision, requester);
  if (def.refused) return def.refused(ctx, who, payload, decision.line);
  await auditSpend(ctx.deps, { ...def.audit(who, payload), result: "failed", message: decision.line });
  return outcomeLine(decision.line);
}

/** The cap a re-quote breaks (OPS_MAX_ORDER_TRX, the daily limit), as the first quote says it; else undefined. */
export async function capRefusal(
  deps: Deps,
  actor: Actor | string,
  quoteTrx: string,
): Promise<string | undefined> {
  const check = await checkSpend({
    store: deps.store,
    actor,
    quoteTrx,
    settings: deps.settings,
    now: deps.now,
  });
  return check.ok ? undefined : check.line;
}

/**
 * The price rose: nothing placed. The new quote with fresh buttons takes the old one's place, under
 * the same rules as a first quote: above a cap it is the refusal line and no Confirm.
 */
async function rose<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  who: Confirmed,
  decision: Extract<ConfirmDecision<Q>, { kind: "rose" }>,
  requester: Requester | undefined,
): Promise<Reply> {
  const { deps } = ctx;
  const notice = priceRoseLine(decision, def.quoteTrx(payload), def.word);
  const cap = await capRefusal(deps, who.actor, decision.quote.costTrx);
  if (cap !== undefined) {
    const line = `The price rose by ${decision.byTrx} TRX (${def.quoteTrx(payload)} → ${decision.quote.costTrx} TRX): ${decision.why}. Nothing was ${def.word}. ${cap}`;
    await auditSpend(deps, {
      ...def.audit(who, payload),
      result: "failed",
      message: `not ${def.word}: ${line}`,
    });
    return outcomeLine(line);
  }
  const audited = def.roseAudit ? def.roseAudit(notice) : `not ordered: ${notice}`;
  await auditSpend(deps, { ...def.audit(who, payload), result: "failed", message: audited });
  const live = def.atQuote(payload, decision.quote);
  const { verdicts, warnings } = decision;
  const { tokens } = await offerQuote(deps, ctx.invocation, def, live, requester);
  return def.requoted(deps, { payload: live, quote: decision.quote, notice, verdicts, warnings, tokens });
}

/** Newly blocked addresses left out of a run: the rest quoted again (live list, caps) with a fresh Confirm. */
async function quoteWithout<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  smaller: P,
  who: Confirmed,
  decision: Extract<ConfirmDecision<Q>, { kind: "refused" }>,
  requester: Requester | undefined,
): Promise<Reply> {
  const { deps } = ctx;
  const blocked = (decision.blocked ?? []).map((v) => v.address);
  await auditSpend(deps, {
    ...def.audit(who, payload),
    result: "failed",
    message: `not ordered: ${decision.line}`,
  });
  const live = def.live(deps, smaller);
  let quote: Q;
  try {
    quote = live.requote(await getPriceList(deps, live.services));
  } catch (error) {
    if (error instanceof UserError) return outcomeLine(error.message);
    throw error;
  }
  const them = blocked.length === 1 ? "it" : "them";
  const notice = `Now on the deny list: ${blocked.join(", ")}. Nothing was ${def.word}; this is the run quoted again without ${them} (left out below), confirm again to go on.`;
  const cap = await capRefusal(deps, who.actor, quote.costTrx);
  if (cap !== undefined) return outcomeLine(`${notice.replace(/, confirm again to go on\.$/, ".")} ${cap}`);
  const next = def.atQuote(smaller, quote);
  const { tokens } = await offerQuote(deps, ctx.invocation, def, next, requester);
  return def.requoted(deps, { payload: next, quote, notice, verdicts: [], warnings: [], tokens });
}

/** "The price fell by …: ordered at …" under a placed spend's reply. */
export const withFellNote = (reply: Reply, fellByTrx: string | undefined, costTrx: string): Reply =>
  fellByTrx === undefined
    ? reply
    : { ...reply, blocks: [...reply.blocks, context(priceFellLine(fellByTrx, costTrx, "ordered"))] };

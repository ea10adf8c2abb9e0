import type { ComplianceVerdict } from "../../service/compliance.js";
import { CANCEL_KIND, createActionGroup } from "../actions.js";
import type { AuditEntry } from "../audit-entry.js";
import { readAudit } from "../audit-log.js";
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

/** Who confirmed, and who asked when it was not them (the button's `requester`). */
function whoOf(ctx: ActionContext, raw: unknown): Confirmed {
  const requester = requesterOf(raw);
  return { ...confirmedBy(ctx), ...(requester && { requester }) };
}

function confirmSpend<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  raw: unknown,
): Promise<Reply> {
  return runSpend(ctx, def, parsePayload<P>(def, raw), whoOf(ctx, raw));
}

async function confirmGuarded<P>(
  ctx: ActionContext,
  def: GuardedDefinition<P>,
  raw: unknown,
): Promise<Reply> {
  const payload = parsePayload<P>(def, raw);
  const who = whoOf(ctx, raw);
  // An approval's click runs it as the requester: the second person has already approved.
  if (def.needsApproval(ctx.deps) && ctx.record.kind !== APPROVE_KIND) {
    return askApproval(ctx, def, { payload, ...(who.requester && { requester: who.requester }) });
  }
  const since = new Date(ctx.deps.now()).toISOString();
  const reply = await def.run(ctx, who, payload);
  await tellOutcome(ctx.deps, refOf(def, who), who, { address: addressOf(payload), since });
  return reply;
}

export interface RunOptions<Q extends LiveQuote> {
  /** The live pricing, when the caller bounds it (a standing order's `max`). */
  live?: LiveSpend<Q>;
  /** A refusal the caller answers itself (a standing order pauses on a blocked address). */
  onRefused?(decision: Extract<ConfirmDecision<Q>, { kind: "refused" }>): Promise<Reply>;
  /** A rise the caller answers itself (a standing order has nobody to confirm again). */
  onRose?(decision: Extract<ConfirmDecision<Q>, { kind: "rose" }>): Promise<Reply>;
}

type Ref = { spend: string; confirmationId: string; requester?: Requester };
const refOf = (def: AnyDefinition, who: Pick<Confirmed, "confirmationId" | "requester">): Ref => ({
  spend: def.name,
  confirmationId: who.confirmationId,
  ...(who.requester && { requester: who.requester }),
});

/** Decides a spend now and acts on the decision: a Confirm, or a standing order's run (`who.requester`). */
export async function runSpend<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  who: Confirmed,
  options: RunOptions<Q> = {},
): Promise<Reply> {
  const { deps } = ctx;
  const decision = await decide(deps, def, payload, who, { ...(options.live && { live: options.live }) });
  const ref = refOf(def, who);
  const requester = who.requester;
  switch (decision.kind) {
    case "refused": {
      await tell(deps, { ...ref, status: "refused", line: decision.line });
      if (options.onRefused) return options.onRefused(decision);
      return refused(ctx, def, payload, who, decision);
    }
    case "rose":
      if (options.onRose) return options.onRose(decision);
      return rose(ctx, def, payload, who, decision);
    case "approval": {
      const live = def.atQuote(payload, decision.quote);
      return askApproval(ctx, def, {
        payload: live,
        quoteTrx: def.quoteTrx(live),
        ...(requester && { requester }),
      });
    }
    case "go": {
      const since = new Date(deps.now()).toISOString();
      const reply = await def.place(ctx, who, def.atQuote(payload, decision.quote), decision.fellByTrx);
      await tellOutcome(deps, ref, who, { address: addressOf(payload), since }, decision.quote.costTrx);
      return reply;
    }
  }
}

/**
 * The audit record a placing left for this confirmation's spend (its actor, its address, since it
 * began): what the lifecycle hook and an approval's audit line learn of it. None: not known yet
 * (a lost answer; its reconciler records it when known).
 */
export async function placedRecord(
  deps: Pick<Deps, "store">,
  match: { actor: Actor | string; address?: string; since: string },
): Promise<AuditEntry | undefined> {
  const actor = typeof match.actor === "string" ? match.actor : actorKey(match.actor);
  const entries = await readAudit(deps.store, 50);
  return entries.find(
    (e) =>
      e.actor === actor &&
      e.address === match.address &&
      e.at >= match.since &&
      !e.verb.startsWith("approval"),
  );
}

/** A payload's one address, when it has one (the audit record names it). */
const addressOf = (payload: unknown): string | undefined => (payload as { address?: string }).address;

/** `ordered` (with the order ids) or `failed`, from the spend's own audit record. */
async function tellOutcome(
  deps: Deps,
  ref: Ref,
  who: Confirmed,
  at: { address: string | undefined; since: string },
  paidTrx?: string,
): Promise<void> {
  if (deps.spendLifecycle === undefined) return;
  const entry = await placedRecord(deps, { actor: who.actor, ...at });
  if (entry === undefined) return;
  if (entry.result === "failed") {
    await tell(deps, { ...ref, status: "failed", line: entry.message ?? "" });
    return;
  }
  const orderIds = entry.orderIds === undefined ? {} : { orderIds: entry.orderIds };
  const paid = paidTrx === undefined ? {} : { paidTrx };
  await tell(deps, { ...ref, status: "ordered", ...paid, confirmedBy: actorKey(who.actor), ...orderIds });
}

/** A refusal: one line, audited; a run on many addresses drops the newly blocked ones and is quoted again. */
async function refused<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  who: Confirmed,
  decision: Extract<ConfirmDecision<Q>, { kind: "refused" }>,
): Promise<Reply> {
  const smaller =
    decision.reason === "deny-list" && decision.blocked && def.without
      ? def.without(payload, decision.blocked)
      : undefined;
  if (smaller !== undefined) return quoteWithout(ctx, def, payload, smaller, who, decision);
  if (def.refused) return def.refused(ctx, who, payload, decision.line);
  await auditSpend(ctx.deps, { ...def.audit(who, payload), result: "failed", message: decision.line });
  return outcomeLine(decision.line);
}

/** The cap a quote breaks (OPS_MAX_ORDER_TRX, the daily limit), as a first quote says it; else undefined. */
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

interface Requote<P, Q> {
  /** The payload as quoted before (audited) and at the new quote (on the fresh button). */
  before: P;
  next: P;
  quote: Q;
  notice: string;
  /** The notice when a cap refuses the new quote (no Confirm). */
  capped(cap: string): string;
  /** The audit message when the new quote is offered. */
  audited: string;
  verdicts?: readonly ComplianceVerdict[];
  warnings?: readonly string[];
}

/**
 * The quote again, under the rules of a first quote: above OPS_MAX_ORDER_TRX or the daily cap it
 * is the refusal line and no Confirm; otherwise the new quote with fresh buttons in the old one's place.
 */
async function quoteAgain<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  who: Confirmed,
  again: Requote<P, Q>,
): Promise<Reply> {
  const { deps } = ctx;
  const cap = await capRefusal(deps, who.actor, again.quote.costTrx);
  const line = cap === undefined ? undefined : again.capped(cap);
  const message = line === undefined ? again.audited : `not ${def.word}: ${line}`;
  await auditSpend(deps, { ...def.audit(who, again.before), result: "failed", message });
  if (line !== undefined) return outcomeLine(line);
  const { tokens } = await offerQuote(deps, ctx.invocation, def, again.next, who.requester);
  return def.requoted(deps, {
    payload: again.next,
    quote: again.quote,
    notice: again.notice,
    verdicts: again.verdicts ?? [],
    warnings: again.warnings ?? [],
    tokens,
  });
}

/** The price rose: nothing placed; the new quote in place (with a Confirm only within the caps). */
function rose<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  who: Confirmed,
  decision: Extract<ConfirmDecision<Q>, { kind: "rose" }>,
): Promise<Reply> {
  const quoted = def.quoteTrx(payload);
  const notice = priceRoseLine(decision, quoted, def.word);
  const moved = `The price rose by ${decision.byTrx} TRX (${quoted} → ${decision.quote.costTrx} TRX): ${decision.why}.`;
  return quoteAgain(ctx, def, who, {
    before: payload,
    next: def.atQuote(payload, decision.quote),
    quote: decision.quote,
    notice,
    capped: (cap) => `${moved} Nothing was ${def.word}. ${cap}`,
    audited: def.roseAudit ? def.roseAudit(notice) : `not ordered: ${notice}`,
    verdicts: decision.verdicts,
    warnings: decision.warnings,
  });
}

/** Newly blocked addresses left out of a run: the rest priced live and quoted again. */
async function quoteWithout<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  payload: P,
  smaller: P,
  who: Confirmed,
  decision: Extract<ConfirmDecision<Q>, { kind: "refused" }>,
): Promise<Reply> {
  const live = def.live(ctx.deps, smaller);
  let quote: Q;
  try {
    quote = live.requote(await getPriceList(ctx.deps, live.services));
  } catch (error) {
    if (error instanceof UserError) return outcomeLine(error.message);
    throw error;
  }
  const blocked = (decision.blocked ?? []).map((v) => v.address);
  const them = blocked.length === 1 ? "it" : "them";
  const left = `Now on the deny list: ${blocked.join(", ")}. Nothing was ${def.word}`;
  return quoteAgain(ctx, def, who, {
    before: payload,
    next: def.atQuote(smaller, quote),
    quote,
    notice: `${left}; this is the run quoted again without ${them} (left out below), confirm again to go on.`,
    capped: (cap) => `${left}; quoted again without ${them}: ${cap}`,
    audited: `not ordered: ${decision.line}`,
  });
}

/** "The price fell by …: ordered at …" under a placed spend's reply. */
export const withFellNote = (reply: Reply, fellByTrx: string | undefined, costTrx: string): Reply =>
  fellByTrx === undefined
    ? reply
    : { ...reply, blocks: [...reply.blocks, context(priceFellLine(fellByTrx, costTrx, "ordered"))] };

import type { ActionContext, ActionHandler } from "../command.js";
import type { CoreDeps } from "../deps.js";
import type { Actor } from "../invocation.js";
import { recordPlaced } from "../ledger/placed.js";
import { context, type Reply } from "../reply.js";
import { type Requester, requesterLine, requesterOf, tell } from "../spend-lifecycle.js";
import { askApproval } from "./approval-gate.js";
import { APPROVE_KIND } from "./approval-request.js";
import { type Confirmed, confirmedBy } from "./confirmed.js";
import { type ConfirmDecision, decideAtConfirm, type LiveQuote, priceFellLine } from "./decide-at-confirm.js";
import type { AnyDefinition, GuardedDefinition, LiveSpend, SpendDefinition } from "./definition.js";
import { refused, rose } from "./requote.js";
import { type Ref, tellOutcome } from "./tell-outcome.js";

/**
 * The one money path. Every spend is a definition (src/core/spend/definition.ts) and this module
 * does the rest, the same way for each:
 *
 *   offerQuote (offer-quote.ts) → [Confirm] → confirmActionOf(def).run → runSpend → decide
 *     (decide is the only call of decideAtConfirm; test/unit/layers.test.ts holds it to this module)
 *     refused  → one line (a payout run drops a newly blocked address and is quoted again: `without`)
 *     rose     → the new quote with fresh buttons in place (none above a cap: the refusal line);
 *                both in requote.ts
 *     approval → an approval request (approval-gate.ts); Approve decides again (approvals/)
 *     go       → placeSpend: def.place (durable intent: the core claimed the buttons; keys from the
 *                confirmation) answers what it came to, entered in the ledger here (recordPlaced);
 *                followers read it from the ledger by its confirmation (ledger/placed.ts)
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
  seed: { confirmationId: string; actor: Actor; requester?: Requester },
  options: { approval?: "ask" | "approved"; live?: LiveSpend<Q> } = {},
): Promise<ConfirmDecision<Q>> {
  const live = options.live ?? def.live(deps, payload);
  return decideAtConfirm(deps, {
    ...live,
    confirmationId: seed.confirmationId,
    actor: seed.actor,
    ...(seed.requester?.kind === "agent" && { agent: seed.requester.name }),
    word: def.word,
    approval: options.approval ?? "ask",
  });
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
  const reply = await def.run(ctx, who, payload);
  await tellOutcome(ctx.deps, refOf(def, who), who);
  return withRequesterNote(reply, who.requester);
}

export interface RunOptions<Q extends LiveQuote> {
  /** The live pricing, when the caller bounds it (a standing order's `max`). */
  live?: LiveSpend<Q>;
  /** A refusal the caller answers itself (a standing order pauses on a blocked address). */
  onRefused?(decision: Extract<ConfirmDecision<Q>, { kind: "refused" }>): Promise<Reply>;
  /** A rise the caller answers itself (a standing order has nobody to confirm again). */
  onRose?(decision: Extract<ConfirmDecision<Q>, { kind: "rose" }>): Promise<Reply>;
}

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
      return withRequesterNote(await rose(ctx, def, payload, who, decision), requester);
    case "approval": {
      const live = def.atQuote(payload, decision.quote);
      return askApproval(ctx, def, {
        payload: live,
        quoteTrx: def.quoteTrx(live),
        ...(requester && { requester }),
      });
    }
    case "go": {
      const reply = await placeSpend(ctx, def, who, def.atQuote(payload, decision.quote), decision.fellByTrx);
      await tellOutcome(deps, ref, who);
      return withRequesterNote(reply, requester);
    }
  }
}

/**
 * Places what the decision allowed and enters what it came to in the ledger (ledger/placed.ts:
 * the one writer settles or releases the hold): a Confirm's `go`, and an approved request.
 * A kill between the two is safe: the durable intent runs it again, the service answers the same
 * key with the same order, and the entry is written once (by its confirmation id).
 */
export async function placeSpend<P, Q extends LiveQuote>(
  ctx: ActionContext,
  def: SpendDefinition<P, Q>,
  who: Confirmed,
  payload: P,
  fellByTrx?: string,
): Promise<Reply> {
  const { reply, ...placed } = await def.place(ctx, who, payload, fellByTrx);
  await recordPlaced(ctx.deps, { kind: def.ledgerKind, confirmationId: who.confirmationId }, placed);
  return reply;
}

/** Who asked, under the outcome's "Confirmed by …", when it was an agent (lifecycle.ts). */
export function withRequesterNote(reply: Reply, requester: Requester | undefined): Reply {
  const line = requesterLine(requester);
  return line === undefined ? reply : { ...reply, blocks: [...reply.blocks, context(line)] };
}

/** "The price fell by …: ordered at …" under a placed spend's reply. */
export const withFellNote = <T extends { reply: Reply }>(
  placed: T,
  fellByTrx: string | undefined,
  costTrx: string,
): T =>
  fellByTrx === undefined
    ? placed
    : {
        ...placed,
        reply: {
          ...placed.reply,
          blocks: [...placed.reply.blocks, context(priceFellLine(fellByTrx, costTrx, "ordered"))],
        },
      };

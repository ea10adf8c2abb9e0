import type { z } from "zod";
import type { ComplianceVerdict } from "../../service/compliance.js";
import type { PriceList, PricingServiceName } from "../../service/pricing.js";
import type { ActionContext } from "../command.js";
import type { CoreDeps } from "../deps.js";
import type { LedgerKind } from "../ledger/entry.js";
import type { PlaceResult } from "../ledger/placed.js";
import type { Reply } from "../reply.js";
import type { Role } from "../roles.js";
import type { Confirmed } from "./confirmed.js";
import type { LiveQuote } from "./decide-at-confirm.js";
import type { SpendWord } from "./preflight.js";
import type { SpendOutcome } from "./spend-audit.js";

/**
 * What a feature declares about one of its spends, beside its commands (`FeatureDefinition.spends`).
 * The feature knows its payload, its price, how to place it and how it reads; the one pipeline
 * (src/core/spend/pipeline.ts) owns everything else: the quote's buttons, the Confirm, the decision
 * at Confirm, "price rose → quote again in place", approval requests, the durable intent and the
 * record. Approvals find a definition by `name` (src/core/approvals/ never imports a feature).
 */

/** How one payload is priced live at Confirm. */
export interface LiveSpend<Q extends LiveQuote> {
  /** What the person confirmed (the amount on the button). */
  quoted: LiveQuote;
  /** The addresses the spend goes to (one deny-list batch call, at most 1000). */
  addresses: readonly string[];
  /** The price list services it is priced from. */
  services: readonly PricingServiceName[];
  /** The quote from the live list; a UserError when the list cannot price it. Must be JSON. */
  requote(list: PriceList): Q;
}

/** What a re-quote shows: the new quote, why, and the fresh buttons (absent: refused, no Confirm). */
interface RequoteView<P, Q> {
  payload: P;
  quote: Q;
  /** The line above the new quote ("The price rose by …", "… left out …"). */
  notice: string;
  verdicts: readonly ComplianceVerdict[];
  warnings: readonly string[];
  tokens: { confirm: string; cancel: string };
}

type Deps = CoreDeps;

/** What a definition's `place` answers: what it came to (ledger/placed.ts) and the reply. */
export type Placed = PlaceResult & { reply: Reply };

/**
 * What sets a spend off: a person's Confirm (`SpendDefinition`); a person's command charged at once
 * (a paid screening); automatic (a scheduled re-screen); charged by the service by itself (a Host
 * Mode cycle). The last three are `ChargeDefinition`s: no Confirm, the same caps and ledger.
 */
type SpendTrigger = "confirm" | "command" | "automatic" | "service";

export interface SpendDefinition<P = unknown, Q extends LiveQuote = LiveQuote> {
  kind: "spend";
  trigger: "confirm";
  /** The definition's name: what an approval request stores (`energy`, `payout`, `host`). */
  name: string;
  /** The action kind of its Confirm button (`energy.confirm`). */
  confirmKind: string;
  schema: z.ZodType<P>;
  /** "ordered" or "started", for the lines. */
  word: SpendWord;
  /** The amount the payload was quoted at. */
  quoteTrx(payload: P): string;
  live(deps: Pick<Deps, "now">, payload: P): LiveSpend<Q>;
  /** The payload at the live quote: what is ordered, held against the caps and recorded. */
  atQuote(payload: P, quote: Q): P;
  /** Its entries' kind in the ledger (`energy`, `payout`, `host_start`). */
  ledgerKind: LedgerKind;
  /**
   * Places the spend the decision allowed (its amount reserved), keyed by `who.confirmationId`,
   * and answers what it came to with the reply: the pipeline enters it in the ledger (settling or
   * releasing the hold); a lost answer is reconciled by its own tracked job, which enters it later.
   */
  place(ctx: ActionContext, who: Confirmed, payload: P, fellByTrx?: string): Promise<Placed>;
  /** The audit fields every outcome of one confirmation shares. */
  audit(
    who: Pick<Confirmed, "actor" | "conversation" | "requester">,
    payload: P,
  ): Omit<SpendOutcome, "result" | "message">;
  /** One phrase for approval requests: "65,000 energy for T… (5 minutes)". */
  describe(payload: P): string;
  /** The quote again with fresh buttons, in place of the old one (a price rise, a left-out address). */
  requoted(deps: Deps, view: RequoteView<P, Q>): Promise<Reply>;
  /** The audit message of a price rise (default `not ordered: <notice>`). */
  roseAudit?(notice: string): string;
  /**
   * A spend on many addresses that may drop newly blocked ones and be quoted again without them
   * (a payout run); undefined: nothing left, refused as a whole.
   */
  without?(payload: P, blocked: readonly ComplianceVerdict[]): P | undefined;
}

/**
 * An irreversible action that is not a spend (a sub-user's deletion): the same buttons, once-only
 * claim, durable intent and second-person approval, with its own role, no price and no caps.
 */
export interface GuardedDefinition<P = unknown> {
  kind: "guarded";
  name: string;
  confirmKind: string;
  schema: z.ZodType<P>;
  /** Who may press its button and who may approve it. */
  role: Role;
  /** Whether a second person must approve it now (from the settings). */
  needsApproval(deps: Pick<Deps, "settings">): boolean;
  /** Carries it out (once per confirmation: the claim and the intent are the pipeline's). */
  run(ctx: ActionContext, who: Confirmed, payload: P): Promise<Reply>;
  describe(payload: P): string;
  /** The lines of its approval request (it has no price). */
  approvalText: {
    /** Why a second person: shown on the request. */
    why(requester: string): string;
    /** The requester pressed Approve. */
    self: string;
    /** "Nothing was deleted." */
    nothingDone: string;
    /** Refused where the platform has one person (the console). */
    onePerson: string;
  };
}

/**
 * A spend no Confirm decides (`trigger`): checked against the caps by the pipeline before it is
 * asked for (spend/charge.ts: `checkCharge`; the service charges a Host Mode cycle whatever they
 * say) and entered in the ledger through it (`recordCharge`), counted toward the day of whom it is
 * charged to, or toward its own monthly budget.
 */
export interface ChargeDefinition {
  kind: "charge";
  /** `screening`, `rescreen`, `host_cycle`. */
  name: string;
  trigger: Exclude<SpendTrigger, "confirm">;
  /** Its entries' kind in the ledger. */
  ledgerKind: LedgerKind;
  /** How a cap's line names one: "This screening". */
  noun: string;
  /**
   * A budget of its own per UTC month, instead of a person's caps (the re-screens':
   * OPS_WATCH_BUDGET_TRX); read from the ledger's month total of `ledgerKind`.
   */
  monthBudgetTrx?(settings: Deps["settings"]): string | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds definitions of every payload type
export type AnyDefinition = SpendDefinition<any, any> | GuardedDefinition<any>;

/** What a feature declares in `spends`: what a Confirm decides, and what is charged without one. */
export type DeclaredSpend = AnyDefinition | ChargeDefinition;

/** The definitions a Confirm button and an approval request run (not the charges). */
export const confirmable = (spends: readonly DeclaredSpend[]): AnyDefinition[] =>
  spends.filter((d): d is AnyDefinition => d.kind !== "charge");

/** Keeps a definition's payload and quote types (features declare theirs through it). */
export const defineSpend = <P, Q extends LiveQuote>(
  d: Omit<SpendDefinition<P, Q>, "kind" | "trigger">,
): SpendDefinition<P, Q> => ({
  kind: "spend",
  trigger: "confirm",
  ...d,
});

export const defineCharge = (d: Omit<ChargeDefinition, "kind">): ChargeDefinition => ({
  kind: "charge",
  ...d,
});

export const defineGuarded = <P>(d: Omit<GuardedDefinition<P>, "kind">): GuardedDefinition<P> => ({
  kind: "guarded",
  ...d,
});

/** The definitions by name, read from the feature list (src/core/features.ts). */
export type DefinitionRegistry = ReadonlyMap<string, AnyDefinition>;

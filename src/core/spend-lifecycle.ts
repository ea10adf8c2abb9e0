import { z } from "zod";
import type { Logger } from "./logger.js";

/**
 * Who asked for a spend, beside who confirmed it: a person (the confirmer, or the person who
 * typed the command), a standing order's run, or an agent (over MCP, with its reason). The quote's
 * Confirm button carries it (`requester` next to the definition's payload), the approval request
 * keeps it, and every lifecycle event names it, so a request started elsewhere can be followed.
 */
export const requesterSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("person") }),
  z.object({ kind: z.literal("schedule"), id: z.string() }),
  z.object({ kind: z.literal("agent"), name: z.string(), reason: z.string() }),
]);
export type Requester = z.infer<typeof requesterSchema>;

/** The spend's key: the quote's button group, which is the Confirm's confirmation id. */
interface SpendRef {
  /** The definition's name (`energy`, `payout`, `host`, `subuser`). */
  spend: string;
  confirmationId: string;
  requester?: Requester;
}

/**
 * One event of a spend's life. `quoted`: a quote with Confirm was posted; `approval_pending`: a
 * second person must approve; `ordered`: placed (`orderIds` when the service named them,
 * `paidTrx` the amount decided at Confirm, `confirmedBy` the actor key); `refused`: not placed,
 * one line; `failed`: the run ended in an error line; `cancelled`, `expired`: nobody will
 * confirm it. A quote shown again at Confirm (a price rise) names the one it `replaces`.
 * `delivered` is the feature's to send (its delivery tracking), when it has one.
 */
export type SpendEvent = SpendRef &
  (
    | { status: "quoted"; quoteTrx?: string; replaces?: string }
    | { status: "approval_pending"; quoteTrx?: string }
    | { status: "ordered"; paidTrx?: string; confirmedBy: string; orderIds?: string[] }
    | { status: "delivered" | "cancelled" | "expired" }
    | { status: "refused" | "failed"; line: string }
  );

/** The one hook on a spend's lifecycle (`CoreDeps.spendLifecycle`); it never changes the outcome. */
export interface SpendLifecycle {
  on(event: SpendEvent): void | Promise<void>;
  /**
   * An order the service confirmed delivered on-chain, by its order id (a feature's delivery
   * tracking knows the order, not the confirmation); it may come before the order's answer.
   */
  delivered?(orderId: string): void | Promise<void>;
}

/** Tells the lifecycle hook, if any; a failing hook is logged and never fails the spend. */
export async function tell(
  deps: { spendLifecycle?: SpendLifecycle; logger: Logger },
  event: SpendEvent,
): Promise<void> {
  if (deps.spendLifecycle === undefined) return;
  try {
    await deps.spendLifecycle.on(event);
  } catch (error) {
    deps.logger.warn({ err: error, spend: event.spend, status: event.status }, "spend lifecycle hook failed");
  }
}

/** Tells the lifecycle hook an order was delivered; a failing hook is logged, never thrown. */
export async function tellDelivered(
  deps: { spendLifecycle?: SpendLifecycle; logger: Logger },
  orderId: string,
): Promise<void> {
  if (deps.spendLifecycle?.delivered === undefined) return;
  try {
    await deps.spendLifecycle.delivered(orderId);
  } catch (error) {
    deps.logger.warn({ err: error, orderId }, "spend lifecycle delivery hook failed");
  }
}

/** "Asked by agent <name> ("<reason>")." under an outcome, when an agent asked for it. */
export function requesterLine(requester: Requester | undefined): string | undefined {
  if (requester?.kind !== "agent") return undefined;
  return `Asked by agent ${requester.name} ("${requester.reason}").`;
}

/** The requester a Confirm button's stored payload carries, if any (absent: the confirming person). */
export function requesterOf(raw: unknown): Requester | undefined {
  if (typeof raw !== "object" || raw === null || !("requester" in raw)) return undefined;
  const parsed = requesterSchema.safeParse((raw as { requester: unknown }).requester);
  return parsed.success ? parsed.data : undefined;
}

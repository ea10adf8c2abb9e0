import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey } from "../invocation.js";
import { sunToTrx } from "./trx.js";

/**
 * The Host Mode part of a day's spending (a leaf module: the caps name it, host-cycles.ts writes it).
 * The part of an actor's UTC day that Host Mode cycles make up, in SUN (for the refusal line).
 */
export const hostCyclesKey = (actor: Actor | string, at: number): string =>
  `spend-host:${typeof actor === "string" ? actor : actorKey(actor)}:${new Date(at).toISOString().slice(0, 10)}`;

/** " Host Mode cycles you started count toward it: 12.6 TRX of today's total.", or "" when none today. */
export async function hostCyclesNote(
  deps: Pick<CoreDeps, "store" | "now">,
  actor: Actor | string,
): Promise<string> {
  const raw = await deps.store.get(hostCyclesKey(actor, deps.now()));
  const sun = Number(raw ?? "0");
  return sun > 0
    ? ` Host Mode cycles you started count toward it: ${sunToTrx(sun)} TRX of today's total.`
    : "";
}

import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey } from "../invocation.js";

/**
 * Who asked for a screening, kept for a result that finishes later (the poll posts it): a
 * certificate states who asked.
 */
const ASKER_KEY = (clientOrderId: string) => `screen:asker:${clientOrderId}`;
const ASKER_TTL_MS = 48 * 3_600_000;

export const askerName = (actor: Actor): string =>
  `${actor.displayName ?? actorKey(actor)} (${actorKey(actor)})`;

export const rememberAsker = (deps: Pick<CoreDeps, "store">, clientOrderId: string, actor: Actor) =>
  deps.store.set(ASKER_KEY(clientOrderId), askerName(actor), ASKER_TTL_MS);

export async function askerOf(deps: Pick<CoreDeps, "store">, clientOrderId: string): Promise<string> {
  return (await deps.store.get(ASKER_KEY(clientOrderId))) ?? "not known (finished later)";
}

import { z } from "zod";
import { setJson } from "../../store/store-json.js";
import { hostStarters } from "../activity/facts.js";
import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey, actorSchema } from "../invocation.js";
import { recordCharge } from "../spend/charge.js";
import { defineCharge } from "../spend/definition.js";
import { SPEND_TTL_MS } from "../spend/spend-guard.js";

/**
 * Host Mode cycles are spends the service charges by itself: each cycle callback is one
 * `host_cycle` entry of the ledger at what it says was `charged`, counted toward the daily cap
 * (OPS_DAILY_LIMIT_TRX) of the person who started Host Mode. A start holds its first cycle
 * (reserved at Confirm); the first cycle callback after it settles that hold with what was
 * charged, and every later cycle is added to the starter's day as it is charged. The service
 * charges cycles whatever the cap says, so a cycle is never refused: the starter's other spends
 * are, once the day's total (cycles included) reaches the cap, with a line that names the cycles.
 */
type Deps = CoreDeps;

/** A Host Mode cycle: charged by the service by itself, counted toward its starter's day. */
export const hostCycleCharge = defineCharge({
  name: "host_cycle",
  trigger: "service",
  ledgerKind: "host_cycle",
  noun: "This Host Mode cycle",
});

const FIRST_TTL_MS = SPEND_TTL_MS;
const firstKey = (address: string): string => `host-first-cycle:${address}`;
const firstSchema = z.object({ confirmationId: z.string(), actor: z.union([z.string(), actorSchema]) });

/** A start's first cycle stays held until its callback says what it cost. */
export async function holdFirstCycle(
  deps: Pick<CoreDeps, "store">,
  address: string,
  confirmationId: string,
  actor: Actor,
): Promise<void> {
  await setJson(deps.store, firstKey(address), { confirmationId, actor }, FIRST_TTL_MS);
}

/** One cycle callback: one ledger entry at what it charged, counted toward the starter's day. */
export async function countHostCycle(
  deps: Deps,
  cycle: { address: string; order_id: string; charged?: string | undefined; idle_cycle?: string | undefined },
): Promise<void> {
  if (cycle.charged === undefined || !/^\d+(\.\d+)?$/.test(cycle.charged)) return;
  // Taken by one callback only (GETDEL): a second cycle arriving at once counts as a later one.
  const firstRaw = await deps.store.take(firstKey(cycle.address));
  const first = firstRaw === null ? null : firstSchema.safeParse(JSON.parse(firstRaw));
  const held = first?.success ? first.data : undefined;
  const starter =
    held === undefined
      ? (await hostStarters(deps.store, [cycle.address])).get(cycle.address)
      : typeof held.actor === "string"
        ? held.actor
        : actorKey(held.actor);
  const idle = cycle.idle_cycle === "1" ? " (idle re-delegation)" : "";
  await recordCharge(deps, hostCycleCharge, {
    id: `host-cycle:${cycle.order_id}`,
    actor: `host:${cycle.address}`,
    requester: starter ?? `host:${cycle.address}`,
    address: cycle.address,
    chargedTrx: cycle.charged,
    result: "ordered",
    orderIds: [cycle.order_id],
    confirmationId: held?.confirmationId ?? "",
    detail: `Host Mode cycle${idle}: charged ${cycle.charged} TRX`,
    ...(starter !== undefined && {
      cap: { actor: held?.actor ?? starter, ...(held && { holdId: held.confirmationId }) },
    }),
  });
}

import { z } from "zod";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import { hostStarters } from "../facts/facts.js";
import { type Actor, actorSchema } from "../invocation.js";
import { noteSpend } from "../spend/balance-cache.js";
import { hostCyclesKey } from "../spend/host-cycles-note.js";
import { settleSpend } from "../spend/reservation.js";
import { SPEND_TTL_MS, spendKey } from "../spend/spend-guard.js";
import { trxToSun } from "../spend/trx.js";

/**
 * Host Mode cycles count toward the daily cap (OPS_DAILY_LIMIT_TRX) of the person who started
 * Host Mode, at what each cycle callback says was `charged`. A start holds its first cycle
 * (reserved at Confirm); the first cycle callback after it settles that hold with what was
 * charged, and every later cycle is added to the starter's day as it is charged. The service
 * charges cycles whatever the cap says, so a cycle is never refused: the starter's other spends
 * are, once the day's total (cycles included) reaches the cap, with a line that names the cycles.
 */
type Deps = Pick<CoreDeps, "store" | "now" | "observer" | "logger">;

const FIRST_TTL_MS = SPEND_TTL_MS;
const firstKey = (address: string): string => `host-first-cycle:${address}`;
const countedKey = (orderId: string): string => `host-cycle-counted:${orderId}`;
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

/** One cycle callback: what it charged counts toward the starter's day, once per delegation. */
export async function countHostCycle(
  deps: Deps,
  cycle: { address: string; order_id: string; charged?: string | undefined },
): Promise<void> {
  if (cycle.charged === undefined || !/^\d+(\.\d+)?$/.test(cycle.charged)) return;
  if (!(await deps.store.setIfNotExists(countedKey(cycle.order_id), "1", SPEND_TTL_MS))) return;
  const first = await getJson(deps.store, firstKey(cycle.address), firstSchema);
  if (first !== null) {
    await deps.store.del(firstKey(cycle.address));
    await settleSpend(deps, first.confirmationId, first.actor, cycle.charged);
    await addHostPart(deps, first.actor, cycle.charged);
    return;
  }
  const starter = (await hostStarters(deps.store, [cycle.address])).get(cycle.address);
  if (starter === undefined) return;
  const sun = trxToSun(cycle.charged).toNumber();
  if (sun > 0) await deps.store.incrBy(spendKey(starter, deps.now()), sun, SPEND_TTL_MS);
  await noteSpend(deps, cycle.charged);
  await addHostPart(deps, starter, cycle.charged);
  try {
    deps.observer?.spent?.({ actor: starter, sun });
  } catch {
    // Metrics never fail a recorded spend.
  }
}

async function addHostPart(deps: Deps, actor: Actor | string, chargedTrx: string): Promise<void> {
  const sun = trxToSun(chargedTrx).toNumber();
  if (sun > 0) await deps.store.incrBy(hostCyclesKey(actor, deps.now()), sun, SPEND_TTL_MS);
}

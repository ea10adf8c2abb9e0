import type { CoreDeps } from "../deps.js";
import { readRequest } from "./requests.js";

/**
 * How many of one agent's requests may wait for a person at once (a quote with Confirm, or an
 * approval request). A person confirms them one at a time: three is one being read, one next and
 * one spare, already a queue in the channel. Beyond it a quote would only pile up where people
 * and alerts talk (the per-token limit alone lets an agent post 60 a minute), so the request is
 * refused with the reason and nothing is posted. The slots are shared by every instance (store).
 */
const MAX_AWAITING_PER_AGENT = 3;

/** A slot outlives any wait (a quote lasts 5 minutes, an approval its TTL); it is freed lazily. */
const SLOT_TTL_MS = 24 * 60 * 60_000;
const slotKey = (agent: string, slot: number) => `agent-awaiting:${agent}:${slot}`;
const WAITING = new Set(["awaiting_confirmation", "approval_pending"]);

type Deps = Pick<CoreDeps, "store" | "now">;

export type AwaitingSlot = { ok: true; release(): Promise<void> } | { ok: false; waiting: string[] };

/**
 * Takes one of the agent's slots for `requestId`, or answers the requests holding them all. A
 * slot held by a request that no longer waits (ordered, refused, cancelled, expired) is taken over.
 */
export async function takeAwaitingSlot(deps: Deps, agent: string, requestId: string): Promise<AwaitingSlot> {
  const keys = Array.from({ length: MAX_AWAITING_PER_AGENT }, (_, i) => slotKey(agent, i));
  const held = (key: string): AwaitingSlot => ({
    ok: true,
    async release() {
      if ((await deps.store.get(key)) === requestId) await deps.store.del(key);
    },
  });
  const waiting: string[] = [];
  const holders = await deps.store.getMany(keys);
  for (const [i, key] of keys.entries()) {
    const holder = holders[i] ?? null;
    if (holder !== null && (await stillWaiting(deps, holder))) {
      waiting.push(holder);
      continue;
    }
    // Free, or its request moved on: GETDEL, so of two callers only one frees it.
    if (holder !== null) {
      const taken = await deps.store.take(key);
      if (taken !== null && taken !== holder) {
        await deps.store.setIfNotExists(key, taken, SLOT_TTL_MS);
        waiting.push(taken);
        continue;
      }
    }
    if (await deps.store.setIfNotExists(key, requestId, SLOT_TTL_MS)) return held(key);
    const now = await deps.store.get(key);
    if (now !== null) waiting.push(now);
  }
  return { ok: false, waiting };
}

async function stillWaiting(deps: Deps, requestId: string): Promise<boolean> {
  const request = await readRequest(deps, requestId);
  return request !== undefined && WAITING.has(request.status);
}

/** The refusal when every slot is held. */
export function tooManyWaitingLine(waiting: readonly string[]): string {
  return `${waiting.length} of this agent's requests already await an operator (${waiting.join(", ")}); at most ${MAX_AWAITING_PER_AGENT} wait at once, so this one was not posted. Ask again once one of them is confirmed, cancelled or expired (get_request tells).`;
}

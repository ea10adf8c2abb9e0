import { raiseAlert } from "../alerts/index.js";
import type { CoreDeps } from "../deps.js";
import { publicReply, text } from "../reply.js";
import type { OnBlocked } from "../watch/index.js";
import { idsForAddress, readOrder, readState, type StandingOrder, setState } from "./standing-orders.js";

/**
 * A standing order whose address is on the deny list is paused, with an alert in its
 * conversation (Ack / Snooze / Resolve, copies to `subscribe alerts`): found at a run's deny-list
 * check, or earlier when a watched address's verdict turns blocked (src/core/watch/recheck.ts).
 * `occasion` names this discovery, so a repeat (a retry, another instance) raises nothing twice.
 */
export async function pauseBlockedOrder(
  deps: CoreDeps,
  order: StandingOrder,
  why: string,
  occasion: string,
): Promise<boolean> {
  const state = await readState(deps.store, order.id);
  if (state?.state !== "active") return false;
  await setState(deps.store, order.id, {
    state: "paused",
    by: "the bot",
    why: "address blocked",
    at: deps.now(),
  });
  const said = `Standing order ${order.id} (energy for ${order.address}) is paused: its address is on the deny list. ${why} Resume it with schedule resume ${order.id} once the address is cleared, or remove it.`;
  await raiseAlert(deps, {
    key: `schedule-blocked:${order.id}:${occasion}`,
    kind: "schedule.paused",
    subject: { type: "address", id: order.address },
    severity: "critical",
    posts: [{ conversation: order.conversation, reply: publicReply(said, [text(said)]) }],
  });
  deps.logger.warn(
    { scheduleId: order.id, address: order.address },
    "standing order paused: its address is blocked",
  );
  return true;
}

/** Every active standing order of `address` paused (a watched address became blocked). Never throws. */
async function pauseOrdersOf(deps: CoreDeps, address: string, why: string, occasion: string): Promise<void> {
  try {
    for (const id of await idsForAddress(deps.store, address)) {
      const order = await readOrder(deps.store, id);
      if (order) await pauseBlockedOrder(deps, order, why, occasion);
    }
  } catch (error) {
    deps.logger.error({ err: error, address }, "could not pause the standing orders of a blocked address");
  }
}

/** The watch's hook: a watched address became blocked, so its standing orders pause. */
export const pauseOnBlocked: OnBlocked = async (deps, { address, category, seq }) => {
  await pauseOrdersOf(deps, address, `The deny list now says ${category}.`, `watch-${seq}`);
  return {};
};

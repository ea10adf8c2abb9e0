import type { CoreDeps } from "../deps.js";
import type { Actor, ConversationRef } from "../invocation.js";
import { markBaselineDue, readWatch, saveWatch } from "./state.js";
import { baseline } from "./watch-command.js";

/**
 * What the spend flows call. Both are small and never throw into a money flow: an order that was
 * placed stays placed whatever happens to its watch.
 */

/**
 * After a payout run was ordered: the ordering conversation watches each address, like
 * `autoWatch`, without a lookup per address: their baselines are left to the next tick, which
 * takes them in one batch call.
 */
export async function autoWatchMany(
  deps: CoreDeps,
  conversation: ConversationRef,
  addresses: readonly string[],
  actor: Actor,
): Promise<void> {
  if (!deps.settings.watch.autoWatch) return;
  for (const address of addresses) {
    try {
      if (await readWatch(deps.store, conversation, address)) continue;
      await saveWatch(deps.store, conversation, {
        address,
        addedBy: "auto",
        addedByName: `auto (${actor.displayName ?? actor.userId})`,
        since: deps.now(),
      });
      await markBaselineDue(deps.store, address);
    } catch (error) {
      deps.logger.warn({ err: error, address }, "watch: could not auto-watch an address of a payout run");
    }
  }
}

/**
 * After energy or Host Mode was ordered for `address`: the ordering conversation watches it (deny
 * list only, not billed), unless OPS_AUTO_WATCH=false or it is watched there already.
 */
export async function autoWatch(
  deps: CoreDeps,
  conversation: ConversationRef,
  address: string,
  actor: Actor,
): Promise<void> {
  if (!deps.settings.watch.autoWatch) return;
  try {
    if (await readWatch(deps.store, conversation, address)) return;
    await saveWatch(deps.store, conversation, {
      address,
      addedBy: "auto",
      addedByName: `auto (${actor.displayName ?? actor.userId})`,
      since: deps.now(),
    });
    // Orders can come faster than the open lookup's 10/s and 300/min: the answer to the click
    // does not wait for a slot (a backlog of waiting clicks grows without bound); without one,
    // the next tick takes the baseline in one batch call.
    if ((await baseline(deps, address, { maxLimiterWaitMs: 0 })) === undefined)
      await markBaselineDue(deps.store, address);
  } catch (error) {
    deps.logger.warn({ err: error, address }, "watch: could not auto-watch an ordered address");
  }
}

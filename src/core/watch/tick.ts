import { randomBytes } from "node:crypto";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import type { OnBlocked } from "./on-blocked.js";
import { recheckDenyList, takeDueBaselines } from "./recheck.js";
import { rescreenDue } from "./rescreen.js";

/**
 * One tick of the watchlists (`scheduled` of watch/feature.ts; src/wiring/scheduled-jobs.ts runs it once across every instance).
 * A tick that outlasts the interval keeps the next one out with a lock in the store, so two
 * instances never re-check at once.
 */
const TICK_LOCK_KEY = "watch:tick-lock";
/** Far above a tick's length (10 batch calls), so a crashed tick frees the lock soon enough. */
const TICK_LOCK_TTL_MS = 5 * 60_000;

/**
 * One tick: the deny-list re-check, then the re-screens that are due. Never throws. `onBlocked`:
 * what other features do when an address becomes blocked (src/core/features.ts lists them).
 */
export async function watchTick(
  deps: CoreDeps,
  alerts: readonly ConversationRef[],
  onBlocked: readonly OnBlocked[],
): Promise<void> {
  const owner = randomBytes(8).toString("hex");
  if (!(await deps.store.setIfNotExists(TICK_LOCK_KEY, owner, TICK_LOCK_TTL_MS))) return;
  try {
    await takeDueBaselines(deps).catch((error: unknown) => {
      deps.logger.warn({ err: error }, "watch: first verdicts failed; the next tick tries again");
    });
    await recheckDenyList(deps, onBlocked).catch((error: unknown) => {
      deps.logger.warn({ err: error }, "watch: deny-list re-check failed; the next tick tries again");
    });
    await rescreenDue(deps, alerts).catch((error: unknown) => {
      deps.logger.warn({ err: error }, "watch: re-screening failed; the next tick tries again");
    });
  } finally {
    if ((await deps.store.get(TICK_LOCK_KEY)) === owner) await deps.store.del(TICK_LOCK_KEY);
  }
}

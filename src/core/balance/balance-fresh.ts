import { sleep, within } from "../../clock.js";
import type { StoreReads } from "../../store/read-ahead.js";
import type { CoreDeps } from "../deps.js";
import { formatAge, formatAmount } from "../format.js";
import { type Balance, balanceCovers, getBalance } from "./balance-cache.js";
import { readSnapshot, startBalanceRefresh } from "./balance-refresh.js";

/**
 * The balance a spend may be refused on (CONTRACT: a quote is never refused for lack of balance
 * on a reading older than the last moment the balance could have been read). A last reading that
 * covers the amount is used as it is; one that does not is read again first (a fresh read is
 * worth one of `userinfo`'s 6 a minute: a top-up a second ago is exactly this case). Only a
 * reading made now refuses. When none can be made at once (no slot free) or within
 * FRESH_READ_WAIT_MS (the service slow), the balance is shown as being read again and the spend is not refused on it:
 * the Confirm decides on the live balance, and the service's own check (1004) still applies.
 */
const FRESH_READ_WAIT_MS = 3_000;
/** How often a reading made by another instance (which holds the refresh) is looked for. */
const PEEK_MS = 100;

type Deps = Pick<CoreDeps, "service" | "store" | "logger" | "now">;

/** `reads`: where the first look at the last reading is made (a quote's read ahead). */
export async function balanceToRefuseOn(deps: Deps, costTrx: string, reads?: StoreReads): Promise<Balance> {
  const asked = deps.now();
  const balance = await getBalance(deps, reads);
  if (balanceCovers(balance, costTrx) !== false || !balance.known) return balance;
  // Read for this very call (the first reading): nothing newer can be had.
  if (balance.readAt >= asked) return balance;
  if (await readAgain(deps)) {
    const fresh = await getBalance(deps);
    if (fresh.known) return fresh;
  }
  const reason = `≈ ${formatAmount(balance.balanceTrx)} when read ${formatAge(balance.ageMs ?? 0)} ago, which would not cover it; it is being read again, and Confirm checks the live balance`;
  return { known: false, reason };
}

/** True once a reading made now is stored (by this process, or by the instance holding the refresh). */
async function readAgain(deps: Deps): Promise<boolean> {
  const before = JSON.stringify(await readSnapshot(deps.store));
  const refresh = await startBalanceRefresh(deps);
  if (refresh) {
    // No slot free now: the refresh waits for one, the spend does not wait with it.
    const first = await within(refresh.first, FRESH_READ_WAIT_MS);
    return first?.kind === "read";
  }
  const peek = { stopped: false };
  const landed = (async () => {
    while (!peek.stopped) {
      if (JSON.stringify(await readSnapshot(deps.store)) !== before) return true;
      await sleep(PEEK_MS);
    }
    return false;
  })();
  const answer = await within(landed, FRESH_READ_WAIT_MS);
  peek.stopped = true;
  return answer === true;
}
